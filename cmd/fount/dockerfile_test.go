package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDockerfileEssentials: the Dockerfile builds a static binary in one
// stage and runs it in another, as a non-root user, with the data dir on
// a volume. No container tool can pull base images on the machines fount
// is built on, so the image is not built by the tests; this checks what it
// must hold.
func TestDockerfileEssentials(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	df := string(raw)
	stages := regexp.MustCompile(`(?m)^FROM `).FindAllStringIndex(df, -1)
	if len(stages) < 2 {
		t.Fatalf("%d stages, want a build stage and a run stage", len(stages))
	}
	final := df[stages[len(stages)-1][0]:]
	checks := map[string]bool{
		"a static build (CGO_ENABLED=0)":       strings.Contains(df, "CGO_ENABLED=0 go build"),
		"the binary copied into the run stage": strings.Contains(final, "COPY --from=build /out/fount"),
		"a non-root user":                      regexp.MustCompile(`(?m)^USER (\d+)`).MatchString(final) && !regexp.MustCompile(`(?m)^USER (0|root)\b`).MatchString(final),
		"the data dir on a volume":             strings.Contains(final, `VOLUME ["/data"]`) && strings.Contains(final, "FOUNT_DATA_DIR=/data"),
		"listening beyond loopback":            strings.Contains(final, "FOUNT_ADDR=0.0.0.0:8080") && strings.Contains(final, "EXPOSE 8080 8081"),
		"CA certificates for https egress":     strings.Contains(final, "ca-certificates.crt"),
		"serve by default":                     strings.Contains(final, `ENTRYPOINT ["/usr/local/bin/fount"]`) && strings.Contains(final, `CMD ["serve"]`),
	}
	for what, ok := range checks {
		if !ok {
			t.Errorf("the Dockerfile lacks %s", what)
		}
	}
}
