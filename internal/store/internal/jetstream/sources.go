package jetstream

import "context"

// purgeSourceData removes what a deleted source or workflow kept beyond
// its records: its events, its db and its queued invocations.
func (s *Engine) purgeSourceData(ctx context.Context, id string) error {
	// Its queued invocations first: a run of it in flight on its owner
	// then finds its invocation gone and commits nothing after the purge
	// of its events.
	if err := s.purge(ctx, s.key(tblInvocations, id)+".>"); err != nil {
		return err
	}
	if err := s.deleteEmitterAfter(ctx, id); err != nil {
		return err
	}
	if err := s.purge(ctx, s.key(tblTimers, id)+".>"); err != nil { // its timer props' last fires
		return err
	}
	return s.purge(ctx, s.key(tblDB, id)+".>")
}
