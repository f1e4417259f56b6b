// Command goeq-testframes regenerates the stored test frames the codec
// tests read (compressor/testdata): go run ./cmd/goeq-testframes
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/goeq/goeq/internal/testframes"
)

func main() {
	dir := flag.String("dir", "compressor/testdata", "output folder")
	flag.Parse()
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, s := range testframes.Stored {
		if err := testframes.Write(*dir, s.Name, testframes.Render(s.W, s.H, s.Textured)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("wrote %s/%s.png and .depth.gz (%dx%d)\n", *dir, s.Name, s.W, s.H)
	}
}
