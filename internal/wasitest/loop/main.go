// loop never ends: only the deadline stops it.
package main

func main() {
	n := 0
	for {
		n++
	}
}
