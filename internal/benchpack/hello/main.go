// Command hello is the cold-start floor of make bench: a Go WebAssembly
// module that does nothing, so fetching, compiling and running it to the end
// of main is what any Go module pays before its own work starts.
package main

func main() {}
