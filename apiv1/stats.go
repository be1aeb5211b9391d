package apiv1

// StatsRequest asks for a source's, workflow's or webhook's statistics
// over a range of time (extension).
type StatsRequest struct {
	Common
	ByID
	StatsRange
}

// StatsRange is the range of time and the step of a statistics request.
type StatsRange struct {
	From int64 `query:"from" json:"-" minimum:"0" description:"epoch seconds, taken down to its minute; default to minus an hour"`
	To   int64 `query:"to" json:"-" minimum:"0" description:"epoch seconds, exclusive; default now, its minute included"`
	Step int64 `query:"step" json:"-" minimum:"60" maximum:"31622400" description:"seconds a point sums, a multiple of 60; default 60"`
}

// MaxStatsIDs is how many resources one StatsOfManyRequest names at most:
// a page of a list.
const MaxStatsIDs = 100

// MaxStatsAnswerPoints is how many points one StatsOfManyRequest's
// answer holds at most: its ids times the points of its range.
const MaxStatsAnswerPoints = 100_000

// StatsOfManyRequest asks for the statistics of several sources,
// workflows and webhooks over one range at once (extension): a list's
// sparklines in one request rather than one a row.
type StatsOfManyRequest struct {
	Common
	IDs string `query:"ids" json:"-" maxLength:"6500" required:"true" description:"comma-separated ids of sources (dc_), workflows (p_) and webhooks (wh_), at most 100, each once and readable by the caller; the ids times the points of the range at most 100,000"`
	StatsRange
}

// StatsOf is one resource's statistics in the answer to a
// StatsOfManyRequest, in the order the request named them.
type StatsOf struct {
	ID string `json:"id" required:"true"`
	Stats
}

// Stats are a resource's statistics, counted a minute at a time with the
// runs and deliveries they count: point i of each series covers [from +
// i*step, from + (i+1)*step).
type Stats struct {
	From   int64       `json:"from" required:"true" description:"epoch seconds: the first point's start"`
	To     int64       `json:"to" required:"true" description:"epoch seconds: the last point's end"`
	Step   int64       `json:"step" required:"true" description:"seconds each point sums"`
	Series StatsSeries `json:"series" required:"true"`
	Totals StatsTotals `json:"totals" required:"true" description:"the whole range's"`
}

// StatsSeries are a Stats' series, one value per point. Durations are
// in milliseconds (to the microsecond), each quantile read from a
// histogram of log-linear buckets (within about 12%); 0 where nothing
// ran or was delivered.
type StatsSeries struct {
	Events           []int64   `json:"events" required:"true" nullable:"false" description:"events emitted ($errors and fount's other $ channels not counted)"`
	Errors           []int64   `json:"errors" required:"true" nullable:"false" description:"events emitted on $errors"`
	Runs             []int64   `json:"runs" required:"true" nullable:"false" description:"runs of a source, executions of a workflow, that ended"`
	RunsFailed       []int64   `json:"runs_failed" required:"true" nullable:"false"`
	RunMsP50         []float64 `json:"run_ms_p50" required:"true" nullable:"false"`
	RunMsP95         []float64 `json:"run_ms_p95" required:"true" nullable:"false"`
	Delivered        []int64   `json:"delivered" required:"true" nullable:"false" description:"deliveries answered with a 2xx"`
	DeliveryFailures []int64   `json:"delivery_failures" required:"true" nullable:"false" description:"delivery attempts that failed"`
	LatencyMsP50     []float64 `json:"latency_ms_p50" required:"true" nullable:"false" description:"from a delivery's queueing to its 2xx, retries included"`
	LatencyMsP95     []float64 `json:"latency_ms_p95" required:"true" nullable:"false"`
}

// StatsTotals are the sums (and quantiles) of a whole range.
type StatsTotals struct {
	Events           int64   `json:"events" required:"true"`
	Errors           int64   `json:"errors" required:"true"`
	Runs             int64   `json:"runs" required:"true"`
	RunsFailed       int64   `json:"runs_failed" required:"true"`
	RunMsP50         float64 `json:"run_ms_p50" required:"true"`
	RunMsP95         float64 `json:"run_ms_p95" required:"true"`
	Delivered        int64   `json:"delivered" required:"true"`
	DeliveryFailures int64   `json:"delivery_failures" required:"true"`
	LatencyMsP50     float64 `json:"latency_ms_p50" required:"true"`
	LatencyMsP95     float64 `json:"latency_ms_p95" required:"true"`
}
