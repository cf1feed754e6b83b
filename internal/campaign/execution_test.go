package campaign

import (
	"context"
	"reflect"
	"testing"
	"time"
)

// Execute runs a campaign without writing to its Config: the state of
// running it (the count its events carry, the lock that tells Progress of
// one at a time) is the execution's own, so a Config reads after a run as
// it was given, and one may be run again or shared.
func TestExecuteLeavesTheConfigAsItWas(t *testing.T) {
	c, r := concurrentCampaign(t, &timedLauncher{d: 10 * time.Millisecond}, true, 1)
	before := *c
	if err := Execute(context.Background(), c, r); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, *c) {
		t.Errorf("Execute changed its Config:\nbefore %+v\nafter  %+v", before, *c)
	}
}
