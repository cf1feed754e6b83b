package scenarios

import (
	"strings"
)

// container checks a role's container: an image named literally (every
// arm runs the one image: a template could name another per arm), the
// docker runtime, mounts that read, and no arm build (a build is a file of
// the host, which the container does not have).
func (v *validator) container(path []any, r *Role) {
	c := r.Container
	switch {
	case c.Image == "":
		v.at(path, "role %q: container needs image: the image every rank of the role runs in (a tag such as server:1.4, or an image ID)", r.Name)
	case strings.Contains(c.Image, "{{"):
		v.at(append(path, "image"), "role %q: image %q is a template: every arm runs one image, so name it literally (images differ between arms only as the same name resolved at two times, which abbench censors)", r.Name, c.Image)
	case strings.ContainsAny(c.Image, " \t\n"):
		v.at(append(path, "image"), "role %q: image %q holds white space: no image name does", r.Name, c.Image)
	}
	if c.Runtime != RuntimeDocker {
		v.at(append(path, "runtime"), "role %q: container runtime %q: choose %s (its images run under the Slurm launcher too, written out for Slurm's containers)", r.Name, c.Runtime, RuntimeDocker)
	}
	for i, m := range c.Mounts {
		if _, err := v.s.ParseMount(m); err != nil {
			v.at(append(path, "mounts", i), "role %q: %v", r.Name, err)
		}
	}
	if v.s.HasBuilds() {
		v.at(path, "role %q runs in a container, but the arms are builds: a build is a file of this host, which the container does not have; run the builds on the host", r.Name)
	}
}
