package webhook_test

import (
	"io"
	"log"
	"net/http"

	"github.com/fount-dev/fount/webhook"
)

// A receiver checks each delivery before it trusts it: the secret is the
// webhook's signing secret, shown once when the webhook was created.
func ExampleVerifier() {
	verifier, err := webhook.NewVerifier("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil {
		log.Fatal(err)
	}
	http.HandleFunc("/hooks/fount", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
		if err != nil {
			http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
			return
		}
		if err := verifier.Verify(r.Header, body); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		// The delivery is fount's: handle body, and answer 2xx quickly;
		// fount retries anything else. webhook-id is the same on a retry.
		w.WriteHeader(http.StatusNoContent)
	})
}
