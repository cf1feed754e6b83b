package history

import "syscall"

// populate faults the whole mapping in at once: one pass over the store.
const populate = syscall.MAP_POPULATE
