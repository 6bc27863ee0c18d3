// The example package's workload: a web server answering its greeting on :8080. Standard
// library only, so it builds offline into a static binary that is the image's only file.
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
)

func main() {
	greeting := flag.String("greeting", "hello", "what to answer")
	addr := flag.String("listen", ":8080", "address to listen on")
	flag.Parse()
	http.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, *greeting)
	})
	log.Printf("answering %q on %s", *greeting, *addr)
	log.Fatal(http.ListenAndServe(*addr, nil))
}
