//go:build unix

package main

import "syscall"

// Open flags of ReadFolder: never follow a final symbolic link, never wait
// for a pipe's writer.
const (
	openNoFollow = syscall.O_NOFOLLOW
	openNonBlock = syscall.O_NONBLOCK
)
