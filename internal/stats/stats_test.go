package stats

import (
	"slices"
	"testing"
)

func TestByRendererFoldsSharedRenderers(t *testing.T) {
	got := ByRenderer([]string{"n1", "", "n1", "n2", ""}, []float64{1, 2, 3, 4, 5})
	if want := []float64{3, 2, 4, 5}; !slices.Equal(got, want) {
		t.Errorf("ByRenderer = %v, want %v", got, want)
	}
	if got := ByRenderer(nil, []float64{1, 2}); !slices.Equal(got, []float64{1, 2}) {
		t.Errorf("unnamed: %v", got)
	}
}
