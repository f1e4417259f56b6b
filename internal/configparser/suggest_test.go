package configparser

import "testing"

func TestDidYouMean(t *testing.T) {
	compound := blockKeywords["compound"]
	for _, c := range []struct {
		word string
		in   []string
		want string
	}{
		{"viewprot", compound, `: did you mean "viewport"?`},    // two letters swapped
		{"Viewport", compound, `: did you mean "viewport"?`},    // keywords are case-sensitive
		{"inputfame", compound, `: did you mean "inputframe"?`}, // one missing
		{"load_equaliser", compound, `: did you mean "load_equalizer"?`},
		{"subpixels", compound, `: did you mean "subpixel"?`},
		{"colour", compound, ""}, // nothing like it
		{"rnage", compound, `: did you mean "range"?`},
		{"eyes", compound, `: did you mean "eye"?`},
		{"xy", compound, ""},
		{"EQ_WINDOW_IATTR_HINT_DRAWABEL", blockKeywords["global"], `: did you mean "EQ_WINDOW_IATTR_HINT_DRAWABLE"?`},
	} {
		if got := didYouMean(c.word, c.in); got != c.want {
			t.Errorf("didYouMean(%q) = %q, want %q", c.word, got, c.want)
		}
	}
}

func TestTypoDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "abc", 0}, {"", "abc", 3}, {"abc", "", 3},
		{"abc", "acb", 1}, {"kitten", "sitting", 3}, {"ca", "abc", 3},
	} {
		if got := typoDistance(c.a, c.b); got != c.want {
			t.Errorf("typoDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
