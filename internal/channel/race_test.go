//go:build race

package channel

// underRace: the race detector maps shadow memory as the process touches
// memory, page faults the memory test cannot tell from its own.
const underRace = true
