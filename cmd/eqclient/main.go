// Command eqclient is goeq's render client: one process per render node,
// joining an eqserver. The distributed runtime is not built yet; until it
// is, eqclient says so instead of pretending to render.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	server := flag.String("server", "", "address of the eqserver to join (host:port)")
	flag.Parse()
	fmt.Fprintf(os.Stderr, "eqclient: the render runtime is not available in this build (server %q); "+
		"use 'eqserver check|fmt|explain' to work with configurations\n", *server)
	os.Exit(2)
}
