// alloc keeps allocating memory it touches, past any cap.
package main

import "os"

var kept [][]byte

func main() {
	for i := 0; ; i++ {
		b := make([]byte, 8<<20)
		for j := range b {
			if j%4096 == 0 {
				b[j] = byte(i)
			}
		}
		kept = append(kept, b)
		os.Stderr.WriteString("allocated another 8 MiB\n")
	}
}
