//go:build !race

package channel

const underRace = false
