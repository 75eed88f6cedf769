//go:build linux

package procfs

import (
	"os"
	"strconv"
)

// ReadStat reads and parses /proc/<pid>/stat. A process that does not
// exist is an error satisfying errors.Is(err, fs.ErrNotExist).
func ReadStat(pid int) (Stat, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Stat{}, err
	}
	return ParseStat(data)
}
