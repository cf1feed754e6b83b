package history

import (
	"fmt"
	"path/filepath"
	"syscall"
)

// filesystems names the filesystems a store is kept on by their statfs
// magic numbers (linux/magic.h), for a message that says where an add
// could not lock.
var filesystems = map[int64]string{
	0x6969: "NFS", 0x65735546: "FUSE (sshfs among them)", 0xFF534D42: "CIFS", 0xFE534D42: "SMB2", 0x517B: "SMB",
	0x01021997: "9p", 0x00C36400: "CephFS", 0x0BD00BD0: "Lustre", 0x47504653: "GPFS", 0x5346414F: "AFS", 0x6B414653: "AFS (kAFS)",
	0xEF53: "ext2/3/4", 0x58465342: "XFS", 0x9123683E: "Btrfs", 0x01021994: "tmpfs", 0x794C7630: "overlayfs", 0x2FC12FC1: "ZFS",
	0x62656572: "sysfs", 0x9FA0: "procfs",
}

// filesystemOf names the filesystem path's directory is on: its type
// and, for one this table lacks, its magic number.
func filesystemOf(path string) string {
	var st syscall.Statfs_t
	if err := syscall.Statfs(filepath.Dir(path), &st); err != nil {
		return fmt.Sprintf("unknown: statfs: %v", err)
	}
	if name, ok := filesystems[int64(st.Type)]; ok {
		return name
	}
	return fmt.Sprintf("type 0x%x", st.Type)
}
