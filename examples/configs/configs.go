// Package configs carries the examples' default configuration in their
// executables, so that they run from any folder.
package configs

import _ "embed" // for Default

// Default is the examples' default config: four sources, load-balanced in
// 2D, on two render nodes and the application's.
//
//go:embed 2d-lb-4.eqc
var Default string

// DefaultName names Default in messages.
const DefaultName = "2d-lb-4.eqc (built in)"

// Pick is the config an example runs: the file at path, or Default where
// path is empty. It returns goeq.Options' Config and ConfigText.
func Pick(path string) (name, text string) {
	if path == "" {
		return DefaultName, Default
	}
	return path, ""
}
