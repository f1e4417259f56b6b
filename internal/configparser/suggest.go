package configparser

import (
	"fmt"
	"strings"
)

// didYouMean names the candidate a misspelt word was most likely meant to
// be, as ": did you mean "x"?", or "" when none is close: a letter or two
// wrong, missing, extra or swapped (more in a longer word), or the wrong
// case, since keywords are case-sensitive.
func didYouMean(word string, candidates []string) string {
	best, bestDist := "", len(word)/4+1
	if bestDist > 3 {
		bestDist = 3
	}
	for _, c := range candidates {
		if n := len(word) - len(c); n > bestDist || -n > bestDist {
			continue // too long or short to be close, however long the word
		}
		d := typoDistance(strings.ToLower(word), strings.ToLower(c))
		if d < bestDist || (d == bestDist && best == "") {
			best, bestDist = c, d
		}
	}
	if best == "" || best == word {
		return ""
	}
	return fmt.Sprintf(": did you mean %q?", best)
}

// typoDistance is the optimal string alignment distance: how many letters
// must be changed, inserted, deleted, or swapped with their neighbour to
// make a into b.
func typoDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// three rows of the table: two back, one back and this one
	prev2, prev, cur := make([]int, len(rb)+1), make([]int, len(rb)+1), make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
