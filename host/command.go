package host

// CheckCommand reports whether Open could start argv in dir, before anyone is asked to approve
// it: the directory exists and argv[0] is found as Launch would find it (relative to dir with a
// slash, else in PATH, which the programs in panes inherit).
func CheckCommand(argv []string, dir string) error {
	d, err := resolveDir(dir)
	if err != nil {
		return err
	}
	if len(argv) == 0 {
		return nil // a shell: the host picks it
	}
	_, err = resolveCommand(argv[0], d)
	return err
}
