package main

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// cohortState is a CTX rank's waiting queue. materialize activates exactly
// the cohort rank 0 chose, or changes nothing.
type cohortState struct {
	mu      sync.Mutex
	changed *sync.Cond
	waiting map[int]request
	order   []int // arrival order of waiting requests
	total   int
}

type request struct {
	prompt []uint32
	text   string // a text prompt (the OpenAI API's), in place of tokens
	output int
}

func newCohortState() *cohortState {
	s := &cohortState{waiting: map[int]request{}}
	s.changed = sync.NewCond(&s.mu)
	return s
}

func (s *cohortState) enqueue(id int, r request, total int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.waiting[id]; !dup {
		s.waiting[id] = r
		s.order = append(s.order, id)
	}
	s.total = max(s.total, total)
	s.changed.Broadcast()
}

// pick is rank 0's choice: up to capacity waiting requests in queue order
// (or reversed, another valid order, under reorder-activations).
func (s *cohortState) pick(capacity int, reverse bool) []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := slices.Clone(s.order[:min(capacity, len(s.order))])
	if reverse {
		slices.Reverse(ids)
	}
	return ids
}

// errWrongCohort is a follower's refusal: a cohort naming a request it does not hold.
var errWrongCohort = errors.New("cohort names requests this rank does not hold")

// materialize removes exactly ids from the waiting queue and returns them
// in cohort order, or returns errWrongCohort having changed nothing.
func (s *cohortState) materialize(ids []int) ([]request, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.materializeLocked(ids)
}

func (s *cohortState) materializeLocked(ids []int) ([]request, error) {
	seen := map[int]bool{}
	for _, id := range ids {
		if _, ok := s.waiting[id]; !ok || seen[id] {
			return nil, fmt.Errorf("%w: request %d", errWrongCohort, id)
		}
		seen[id] = true
	}
	out := make([]request, len(ids))
	for i, id := range ids {
		out[i] = s.waiting[id]
		delete(s.waiting, id)
	}
	s.order = slices.DeleteFunc(s.order, func(id int) bool { return seen[id] })
	return out, nil
}

// materializeWait waits, bounded, for enqueues still in flight, since the
// frontend's messages to each rank race with rank 0's activation.
func (s *cohortState) materializeWait(ids []int, wait time.Duration) ([]request, error) {
	deadline := time.Now().Add(wait)
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		reqs, err := s.materializeLocked(ids)
		if err == nil || time.Now().After(deadline) {
			return reqs, err
		}
		t := time.AfterFunc(5*time.Millisecond, s.changed.Broadcast)
		s.changed.Wait()
		t.Stop()
	}
}

func (s *cohortState) totalNow() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}
