// Package vfs holds the skills file system: a hackpadfs file system backed
// by IndexedDB in the browser (and by memory natively), mounted at /skills,
// with path confinement and read-only views.
package vfs
