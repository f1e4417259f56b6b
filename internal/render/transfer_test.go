package render

import (
	"strings"
	"testing"
)

// A colour map preset as ParaView exports one becomes a transfer
// function: its x run spread over the values 0 to 255, colours and
// opacities interpolated between its points, the default opacities where
// it gives none. What is no preset is refused, saying why.
func TestAParaViewPresetIsATransferFunction(t *testing.T) {
	// ParaView's export: a list of presets, x in the data's units
	const coolToWarm = `[
	{
		"ColorSpace" : "Diverging",
		"Name" : "Cool to Warm",
		"NanColor" : [ 1, 1, 0 ],
		"RGBPoints" : [ -100, 0, 0, 1, 0, 1, 1, 1, 100, 1, 0, 0 ],
		"Points" : [ -100, 0, 0.5, 0, 100, 1, 0.5, 0 ]
	}
]`
	tf, err := ReadParaViewTransfer(strings.NewReader(coolToWarm))
	if err != nil {
		t.Fatal(err)
	}
	for v, want := range map[int][4]uint8{0: {0, 0, 255, 0}, 255: {255, 0, 0, 255}, 64: {128, 128, 255, 64}, 191: {255, 129, 129, 191}} {
		if got := tf[v]; absDiff(got, want) > 1 {
			t.Errorf("value %d: %v; want %v", v, got, want)
		}
	}
	// one preset, not a list, without opacities: the default's
	one, err := ReadParaViewTransfer(strings.NewReader(`{"Name": "grey", "RGBPoints": [0, 0, 0, 0, 1, 1, 1, 1]}`))
	if err != nil {
		t.Fatal(err)
	}
	if defaults := DefaultTransfer(); one != defaults {
		t.Errorf("a grey ramp without opacities: %v...; want the default's %v...", one[200], defaults[200])
	}
	for text, want := range map[string]string{
		`{"Name": "none"}`:            "RGBPoints holds 0 numbers",
		`[]`:                          "a list of no colour map presets",
		`{"RGBPoints": [0, 0, 0]}`:    "RGBPoints holds 3 numbers",
		`{"RGBPoints": [0, 0, 0, 2]}`: "RGBPoints point 0: [0 0 0 2]; want a number x, then values from 0 to 1",
		`{"RGBPoints": [1, 0, 0, 0, 0, 1, 1, 1]}`:                 "RGBPoints point 1: x 0 comes before the point before it",
		`{"RGBPoints": [0, 0, 0, 0], "Points": [0, 1.5, 0.5, 0]}`: "Points point 0",
		`<colormap/>`: "not a ParaView colour map preset",
	} {
		if _, err := ReadParaViewTransfer(strings.NewReader(text)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", text, err, want)
		}
	}
}

// absDiff is the largest difference between two colours' components.
func absDiff(a, b [4]uint8) int {
	d := 0
	for i := range a {
		d = max(d, int(a[i])-int(b[i]), int(b[i])-int(a[i]))
	}
	return d
}
