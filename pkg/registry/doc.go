// Package registry keeps the installed skills: their metadata store and
// their lifecycle (import, list, enable, remove, export, edit, dependencies).
package registry
