//go:build linux

package confine

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

func version() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

func start(cmd *exec.Cmd, rules []Rule) error {
	abi := version()
	if abi < 1 {
		return ErrUnsupported
	}
	errc := make(chan error, 1)
	go func() {
		// Never unlocked: the runtime ends a thread whose goroutine
		// returns locked to it, so the restricted thread serves nothing
		// else. The runtime also never clones a locked thread for new
		// ones (it asks its template thread), so no other thread of the
		// server inherits the restriction.
		runtime.LockOSThread()
		// cmd.Start opens /dev/null, on this thread, for any standard
		// stream the caller left nil.
		rules := append([]Rule{{Path: os.DevNull, Access: ReadWrite}}, rules...)
		if err := restrictThread(abi, rules); err != nil {
			errc <- err
			return
		}
		// The child is cloned from this thread, and keeps its domain
		// across exec, for every thread it makes.
		errc <- cmd.Start()
	}()
	return <-errc
}

// File rights are the ones Landlock accepts on a rule for a file rather
// than a folder.
const fileRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
	unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV

// handled is every filesystem right the kernel's Landlock ABI knows: all
// of them are denied but where a rule allows them.
func handled(abi int) uint64 {
	r := uint64(unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM)
	if abi >= 2 {
		r |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		r |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 5 {
		r |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	return r
}

// rights are what an Access allows. ReadWrite makes no links, devices,
// sockets or pipes: nothing fount writes needs them.
func (a Access) rights() uint64 {
	read := uint64(unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR)
	switch a {
	case ReadExec:
		return read | unix.LANDLOCK_ACCESS_FS_EXECUTE
	case ReadWrite:
		return read | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR |
			unix.LANDLOCK_ACCESS_FS_REMOVE_FILE | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
			unix.LANDLOCK_ACCESS_FS_REFER | unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	return read
}

// restrictThread puts the calling OS thread in a Landlock domain that
// allows only rules.
func restrictThread(abi int, rules []Rule) error {
	attr := unix.LandlockRulesetAttr{Handled_access_fs: handled(abi)}
	if abi >= 6 {
		// Nor may the child signal other processes (the server stays in
		// its reach: a thread of its made the domain), or reach their
		// abstract sockets.
		attr.Scoped = unix.LANDLOCK_SCOPE_SIGNAL | unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
	}
	// The fields up to Scoped; older kernels accept the longer struct
	// as long as what they do not know is zero.
	size := unsafe.Offsetof(attr.Quiet_access_fs)
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return fmt.Errorf("confine: create a ruleset: %w", errno)
	}
	defer unix.Close(int(fd))
	for _, r := range rules {
		if err := addRule(int(fd), r, attr.Handled_access_fs); err != nil {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("confine: no new privileges: %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("confine: restrict: %w", errno)
	}
	return nil
}

func addRule(ruleset int, r Rule, handled uint64) error {
	fd, err := unix.Open(r.Path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("confine: open %s: %w", r.Path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("confine: stat %s: %w", r.Path, err)
	}
	allowed := r.Access.rights() & handled
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		allowed &= fileRights
	}
	beneath := unix.LandlockPathBeneathAttr{Allowed_access: allowed, Parent_fd: int32(fd)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&beneath)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("confine: allow %s: %w", r.Path, errno)
	}
	return nil
}
