// Package cgroups limits a container's memory and CPU through Linux control
// groups, as far as the machine allows.
//
// Detect looks once, at agent start, at what this process may manage: cgroup
// v2 (a cgroup2 mount whose cgroup.controllers offers memory and cpu and where
// a child group can enable them in cgroup.subtree_control), else cgroup v1
// (writable memory and cpu hierarchies), else nothing. It creates one
// capstan-owned parent group under the agent's own cgroup; Manager.Create then
// makes one Group per container below it and writes the limits (v2 memory.max,
// memory.swap.max, cpu.max; v1 memory.limit_in_bytes, memory.memsw.limit_in_bytes,
// cpu.cfs_quota_us and cpu.cfs_period_us).
//
// A Group is plain data (its directories), so it can be recorded in a
// container's state files and used again by the shim or by an agent that
// restarted: Enter moves a process into it, OOMKilled reads the kernel's OOM
// kill counter, and Remove kills what is left in it and deletes it.
//
// A Manager is read-only after Detect and safe for concurrent use.
package cgroups
