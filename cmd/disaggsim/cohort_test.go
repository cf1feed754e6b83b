package main

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestFollowerRefusesWrongCohortBeforeMutating(t *testing.T) {
	s := newCohortState()
	for id := range 4 {
		s.enqueue(id, request{prompt: []uint32{uint32(id)}}, 4)
	}
	if _, err := s.materialize([]int{0, 1, 9}); !errors.Is(err, errWrongCohort) {
		t.Fatalf("cohort naming an unknown request: got %v", err)
	}
	if _, err := s.materialize([]int{2, 2}); !errors.Is(err, errWrongCohort) {
		t.Fatalf("cohort naming a request twice: got %v", err)
	}
	if len(s.waiting) != 4 || len(s.order) != 4 {
		t.Fatalf("a refused cohort changed state: %d waiting, order %v", len(s.waiting), s.order)
	}
	reqs, err := s.materialize([]int{3, 1})
	if err != nil || reqs[0].prompt[0] != 3 || reqs[1].prompt[0] != 1 {
		t.Fatalf("exact cohort: %v %v", reqs, err)
	}
	if got := fmt.Sprint(s.order); got != "[0 2]" {
		t.Fatalf("order after activation %s, want [0 2]", got)
	}
}

func TestPickTakesTheQueueHeadUpToCapacity(t *testing.T) {
	s := newCohortState()
	for _, id := range []int{5, 3, 8, 3} { // 3 again: a repeated message
		s.enqueue(id, request{prompt: []uint32{uint32(id)}}, 4)
	}
	if got := fmt.Sprint(s.order); got != "[5 3 8]" {
		t.Fatalf("queue %s, want [5 3 8]: a repeated enqueue is one request", got)
	}
	if got := fmt.Sprint(s.pick(2, false)); got != "[5 3]" {
		t.Errorf("pick(2) = %s, want the queue head [5 3]", got)
	}
	if got := fmt.Sprint(s.pick(2, true)); got != "[3 5]" {
		t.Errorf("reversed pick(2) = %s, want [3 5]", got)
	}
	if got := fmt.Sprint(s.pick(10, false)); got != "[5 3 8]" {
		t.Errorf("pick(10) = %s, want every waiting request", got)
	}
	if len(s.order) != 3 {
		t.Errorf("picking removed requests: queue %v", s.order)
	}
	s.enqueue(9, request{}, 2)
	if s.totalNow() != 4 {
		t.Errorf("total %d after a smaller total came, want 4 (the largest seen)", s.totalNow())
	}
}

func TestMaterializeWaitWaitsForAnEnqueueInFlight(t *testing.T) {
	s := newCohortState()
	s.enqueue(0, request{output: 10}, 2)
	go func() {
		time.Sleep(30 * time.Millisecond)
		s.enqueue(1, request{output: 11}, 2)
	}()
	reqs, err := s.materializeWait([]int{0, 1}, 2*time.Second)
	if err != nil || len(reqs) != 2 || reqs[0].output != 10 || reqs[1].output != 11 {
		t.Fatalf("cohort whose second request was in flight: %v %v", reqs, err)
	}
	start := time.Now()
	if _, err := s.materializeWait([]int{7}, 50*time.Millisecond); !errors.Is(err, errWrongCohort) {
		t.Fatalf("a request that never comes: got %v", err)
	}
	if took := time.Since(start); took < 50*time.Millisecond || took > time.Second {
		t.Fatalf("gave up after %s, want its 50ms wait", took)
	}
}
