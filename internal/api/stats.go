package api

import (
	"net/http"
	"strings"
	"time"

	"github.com/fount-dev/fount/apiv1"
	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/model"
)

// The statistics of sources, workflows and webhooks: one handler each,
// for each checks its own kind of resource, one for several at once (a
// list's), and one reading of the range.

func (s *Server) sourceStats(w http.ResponseWriter, r *http.Request, req *apiv1.StatsRequest) error {
	src, err := s.ownedSource(r.Context(), req.ID)
	if err != nil {
		return err
	}
	return s.writeStats(w, r, src.ID, req)
}

func (s *Server) workflowStats(w http.ResponseWriter, r *http.Request, req *apiv1.StatsRequest) error {
	wf, err := s.ownedWorkflow(r.Context(), req.ID)
	if err != nil {
		return err
	}
	return s.writeStats(w, r, wf.ID, req)
}

func (s *Server) webhookStats(w http.ResponseWriter, r *http.Request, req *apiv1.StatsRequest) error {
	h, err := s.ownedWebhook(r.Context(), req.ID)
	if err != nil {
		return err
	}
	return s.writeStats(w, r, h.ID, req)
}

// writeStats reads and writes id's statistics over req's range.
func (s *Server) writeStats(w http.ResponseWriter, r *http.Request, id string, req *apiv1.StatsRequest) error {
	from, to, step, err := statsRange(s.engine.Now(), &req.StatsRange)
	if err != nil {
		return err
	}
	points, err := s.engine.Stats(r.Context(), id, from, to, step)
	if err != nil {
		return err
	}
	s.writeData(w, r, viewStats(from, step, points))
	return nil
}

// statsOfMany answers the statistics of several resources over one
// range. Each id is checked as its own endpoint checks it, before any
// is read: one that is not the caller's to read fails the whole request,
// naming it. The answer is bounded in points (ids × points of the range)
// and written one resource at a time, so that what it holds in memory
// is one resource's statistics, not the whole answer's.
func (s *Server) statsOfMany(w http.ResponseWriter, r *http.Request, req *apiv1.StatsOfManyRequest) error {
	if strings.TrimSpace(req.IDs) == "" {
		return errMissing("ids")
	}
	list := strings.Split(req.IDs, ",")
	if len(list) > apiv1.MaxStatsIDs {
		return errInvalid("ids", "ids names %d resources; at most %d are read at once.", len(list), apiv1.MaxStatsIDs)
	}
	from, to, step, err := statsRange(s.engine.Now(), &req.StatsRange)
	if err != nil {
		return err
	}
	if points := len(list) * statsPoints(from, to, step); points > apiv1.MaxStatsAnswerPoints {
		return errInvalid("ids", "%d resources of %d points each are %d points; one answer holds at most %d, so take a longer step, a shorter range or fewer ids.",
			len(list), points/len(list), points, apiv1.MaxStatsAnswerPoints)
	}
	named := make(map[string]bool, len(list))
	for _, id := range list {
		if len(id) > maxIDLength {
			return errInvalid("ids", "ids names an id of %d characters; an id has at most %d.", len(id), maxIDLength)
		}
		if named[id] {
			return errInvalid("ids", "ids names %s twice; name each resource once.", id)
		}
		named[id] = true
		if err := s.checkExists(r.Context(), id, "ids", ids.Source, ids.Workflow, ids.Webhook); err != nil {
			return err
		}
	}
	return s.streamData(w, r, len(list), func(i int) (any, error) {
		points, err := s.engine.Stats(r.Context(), list[i], from, to, step)
		if err != nil {
			return nil, err
		}
		return apiv1.StatsOf{ID: list[i], Stats: viewStats(from, step, points)}, nil
	})
}

// statsPoints is how many points of step a range holds.
func statsPoints(from, to time.Time, step time.Duration) int {
	return int((to.Sub(from) + step - 1) / step)
}

// maxIDLength bounds an id named in a list, as apiv1.ByID bounds one in
// a path.
const maxIDLength = 64

// maxStatsStep is the longest step, in seconds: a year, far past what
// is kept, and far from overflowing a time.Duration.
const maxStatsStep = 366 * 24 * 3600

// statsRange reads req's range, its defaults filled in: to now (its
// minute included), from an hour before, a step of a minute.
func statsRange(now time.Time, req *apiv1.StatsRange) (from, to time.Time, step time.Duration, err error) {
	step = time.Minute
	if req.Step != 0 {
		if req.Step < 60 || req.Step%60 != 0 || req.Step > maxStatsStep {
			return from, to, step, errInvalid("step", "step is %d seconds; it must be a positive multiple of 60, at most %d (a year).", req.Step, maxStatsStep)
		}
		step = time.Duration(req.Step) * time.Second
	}
	to = now.Truncate(time.Minute).Add(time.Minute)
	if req.To != 0 {
		to = time.Unix(req.To, 0)
	}
	from = to.Add(-time.Hour)
	if req.From != 0 {
		from = time.Unix(req.From, 0)
	}
	from = from.Truncate(time.Minute)
	if !to.After(from) {
		return from, to, step, errInvalid("from", "from (%d) must be before to (%d).", from.Unix(), to.Unix())
	}
	if n := statsPoints(from, to, step); n > model.MaxStatsPoints {
		return from, to, step, errInvalid("step", "the range holds %d points of %d seconds; at most %d are returned, so take a longer step or a shorter range.", n, int64(step/time.Second), model.MaxStatsPoints)
	}
	return from, to, step, nil
}

// viewStats is points as the API shows them.
func viewStats(from time.Time, step time.Duration, points []model.Stats) apiv1.Stats {
	n := len(points)
	series := apiv1.StatsSeries{
		Events: make([]int64, n), Errors: make([]int64, n), Runs: make([]int64, n), RunsFailed: make([]int64, n),
		RunMsP50: make([]float64, n), RunMsP95: make([]float64, n), Delivered: make([]int64, n),
		DeliveryFailures: make([]int64, n), LatencyMsP50: make([]float64, n), LatencyMsP95: make([]float64, n),
	}
	var total model.Stats
	for i := range points {
		p := &points[i]
		total.Add(p)
		series.Events[i], series.Errors[i] = p.Events, p.Errors
		series.Runs[i], series.RunsFailed[i] = p.Runs, p.RunsFailed
		series.RunMsP50[i], series.RunMsP95[i] = quantileMs(p.RunTime, 0.5), quantileMs(p.RunTime, 0.95)
		series.Delivered[i], series.DeliveryFailures[i] = p.Delivered, p.DeliveryFailures
		series.LatencyMsP50[i], series.LatencyMsP95[i] = quantileMs(p.Latency, 0.5), quantileMs(p.Latency, 0.95)
	}
	return apiv1.Stats{
		From: from.Unix(), To: from.Add(time.Duration(n) * step).Unix(), Step: int64(step / time.Second),
		Series: series,
		Totals: apiv1.StatsTotals{
			Events: total.Events, Errors: total.Errors, Runs: total.Runs, RunsFailed: total.RunsFailed,
			RunMsP50: quantileMs(total.RunTime, 0.5), RunMsP95: quantileMs(total.RunTime, 0.95),
			Delivered: total.Delivered, DeliveryFailures: total.DeliveryFailures,
			LatencyMsP50: quantileMs(total.Latency, 0.5), LatencyMsP95: quantileMs(total.Latency, 0.95),
		},
	}
}

// quantileMs is h's quantile q in milliseconds, to the microsecond.
func quantileMs(h model.Histogram, q float64) float64 {
	return float64(h.Quantile(q).Microseconds()) / 1000
}
