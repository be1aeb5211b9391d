package delivery

import "time"

// Fairness and circuit-breaker limits of webhook deliveries.
const (
	// perAccountDeliveries bounds the attempts in flight for the webhooks
	// of one account (the user who created them, as runs are counted by
	// the user who deployed: an organization's webhooks count against
	// their creator), so that one account's many webhooks never hold
	// every worker.
	perAccountDeliveries = deliveryWorkers / 4
	// breakerThreshold is how many attempts in a row may fail to reach a
	// webhook before its deliveries are paused.
	breakerThreshold = 3
	// breakerCoolOff is the first pause; each failed trial after a pause
	// doubles it, up to breakerMaxCoolOff.
	breakerCoolOff    = 30 * time.Second
	breakerMaxCoolOff = 10 * time.Minute
	// maxKnownAccounts bounds the remembered accounts of webhooks (see
	// deliveryGate.accountOf).
	maxKnownAccounts = 1 << 14
)

// outcome is what an attempt told about its webhook.
type outcome int

const (
	outcomeNone        outcome = iota // nothing: not sent (stopping, webhook gone or inactive)
	outcomeAnswered                   // the endpoint answered, whatever its status
	outcomeUnreachable                // no answer: timeout, refused, DNS, egress refusal
)

// deliveryGate decides which webhooks may have an attempt started now:
//
//   - one attempt in flight per webhook, which also keeps a webhook's
//     deliveries in due order;
//   - perAccountDeliveries in flight per account;
//   - a circuit breaker per webhook: after breakerThreshold attempts in a
//     row got no answer, its deliveries pause for a cool-off, then one
//     trial attempt runs. An answer closes the breaker; another failure
//     pauses again for twice as long, up to breakerMaxCoolOff.
//
// Only transport failures open the breaker. An endpoint that answers,
// even 4xx or 5xx, costs a worker only as long as its answer takes, and
// its deliveries' own backoff spaces the retries; the breaker is for the
// endpoint that holds a worker until the attempt times out.
//
// A pause is no attempt: the paused deliveries stay pending with the
// attempts they had, and run when the breaker lets them. The gate lives in
// memory (a restart closes every breaker) and belongs to the deliverer's
// loop alone, which is why it has no lock.
type deliveryGate struct {
	hooks    map[string]*hookState // webhooks with an attempt in flight or failures
	accounts map[string]int        // attempts in flight per account
	// accountOf remembers webhooks' accounts, so that a webhook of an
	// account at its cap is skipped before its delivery is read. A
	// webhook's creator never changes. When full it is emptied: accounts
	// are learned again.
	accountOf map[string]string
	inFlight  int
	nextSweep time.Time // when forgetIdle next looks
}

// hookState is a webhook's attempt in flight and breaker.
type hookState struct {
	account   string
	inFlight  bool
	failures  int           // attempts in a row without an answer
	coolOff   time.Duration // the pause in force or last in force; 0: the breaker is closed
	openUntil time.Time     // no attempt before this
	last      time.Time     // when its last attempt ended
}

func newDeliveryGate() *deliveryGate {
	return &deliveryGate{hooks: map[string]*hookState{}, accounts: map[string]int{}, accountOf: map[string]string{}}
}

// skip reports whether webhook id may not start an attempt at now, as far
// as the gate knows without reading the webhook.
func (g *deliveryGate) skip(now time.Time, id string) bool {
	if st := g.hooks[id]; st != nil && (st.inFlight || now.Before(st.openUntil)) {
		return true
	}
	account, known := g.accountOf[id]
	return known && g.accounts[account] >= perAccountDeliveries
}

// admit records an attempt starting for webhook id of account, unless
// the webhook or its account may not start one now.
func (g *deliveryGate) admit(now time.Time, id, account string) bool {
	if len(g.accountOf) >= maxKnownAccounts {
		clear(g.accountOf)
	}
	g.accountOf[id] = account
	if g.skip(now, id) {
		return false
	}
	st := g.hooks[id]
	if st == nil {
		st = &hookState{}
		g.hooks[id] = st
	}
	st.account, st.inFlight = account, true
	g.accounts[account]++
	g.inFlight++
	return true
}

// done retires webhook id's attempt with what it told. It reports whether
// the breaker opened (the first pause since the endpoint last answered)
// or closed (an answer after a pause), and the pause now in force.
func (g *deliveryGate) done(now time.Time, id string, o outcome) (opened, closed bool, pause time.Duration) {
	st := g.hooks[id]
	if st == nil || !st.inFlight {
		return false, false, 0
	}
	st.inFlight, st.last = false, now
	g.inFlight--
	if g.accounts[st.account]--; g.accounts[st.account] <= 0 {
		delete(g.accounts, st.account)
	}
	switch o {
	case outcomeAnswered:
		closed = st.coolOff > 0
		st.failures, st.coolOff, st.openUntil = 0, 0, time.Time{}
	case outcomeUnreachable:
		st.failures++
		if st.failures >= breakerThreshold {
			opened = st.coolOff == 0
			st.coolOff = min(max(2*st.coolOff, breakerCoolOff), breakerMaxCoolOff)
			st.openUntil = now.Add(st.coolOff)
			pause = st.coolOff
		}
	}
	if st.failures == 0 {
		delete(g.hooks, id)
	}
	return opened, closed, pause
}

// forgetIdle drops, at most once per breakerMaxCoolOff, the state of the
// webhooks with no attempt in flight whose last attempt and pause both
// ended over breakerMaxCoolOff ago. A webhook with a delivery due is
// normally tried sooner, so these have none, or were deleted; should
// deliveries come, they start with a closed breaker. This bounds the
// state to the webhooks that failed lately.
func (g *deliveryGate) forgetIdle(now time.Time) {
	if now.Before(g.nextSweep) {
		return
	}
	g.nextSweep = now.Add(breakerMaxCoolOff)
	for id, st := range g.hooks {
		if !st.inFlight && now.Sub(st.last) > breakerMaxCoolOff && now.Sub(st.openUntil) > breakerMaxCoolOff {
			delete(g.hooks, id)
		}
	}
}

// free is how many more attempts may start.
func (g *deliveryGate) free() int { return deliveryWorkers - g.inFlight }
