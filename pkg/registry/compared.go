package registry

import "slices"

// comparedWith returns the id of the installed skill that c, a skill of
// an archive to install, is compared with: the one an import that
// replaces replaces, and whose digest says whether c is installed
// already. It is the skill installed from c's folder of the same
// download, whatever its id, when there is one (viaFolder: fromDownload,
// of every valid skill of the archive read, whatever is chosen); update
// says so. Else it is the installed skill of c's name, compared by idKey
// (installed: byKey), the one spelt exactly so among several that fold
// alike (installed before ids were compared folded), else the first by
// id; "" when there is none. Preview and Import (skipInstalled,
// sinceCompared, assignIDs) ask it all, so that an import acts on the
// skill the preview showed.
func comparedWith(c *candidate, viaFolder map[*candidate]Meta, installed map[string][]string) (id string, update bool) {
	if m, ok := viaFolder[c]; ok {
		return m.ID, true
	}
	switch same := installed[idKey(c.s.Name)]; {
	case slices.Contains(same, c.s.Name):
		return c.s.Name, false
	case len(same) > 0:
		return same[0], false
	}
	return "", false
}

// isInstalled reports whether c is byte for byte m, the installed skill
// it is compared with (comparedWith, update as it says), as it would be
// installed in m's place: one of its name only as that very id, not as
// one that differs in case.
func isInstalled(c *candidate, m Meta, update bool) bool {
	return (update || m.ID == c.s.Name) && installedDigest(c, m.ID) == m.Digest
}
