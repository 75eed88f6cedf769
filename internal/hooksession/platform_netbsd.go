package hooksession

// issueClock is NetBSD's CLOCK_MONOTONIC (<sys/time.h>), which
// golang.org/x/sys/unix does not define for NetBSD.
const issueClock = 3
