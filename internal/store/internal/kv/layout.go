package kv

// The tables and lists of the rules: each names its bbolt bucket(s) and
// its JetStream subject (or list name), as stored before the rules were
// shared, so that no stored data moved. The engines' own layout (events,
// queues, deliveries, the db) is theirs.

// Lists of records in creation order per owner.
var (
	OrgList     = List{Name: "orgs", Order: []byte("org_order"), Pos: []byte("org_pos")}
	SourceList  = List{Name: "sources", Order: []byte("source_order"), Pos: []byte("source_pos")}
	SubList     = List{Name: "subscriptions", Order: []byte("sub_order"), Pos: []byte("sub_pos")}
	AutoList    = List{Name: "auto_subscriptions", Order: []byte("auto_order"), Pos: []byte("auto_pos")}
	WebhookList = List{Name: "webhooks", Order: []byte("webhook_order"), Pos: []byte("webhook_pos")}
	AccountList = List{Name: "accounts", Order: []byte("account_order"), Pos: []byte("account_pos")}
	// OrgMemberList lists the orgs each user belongs to, in the orgs'
	// creation order: in bbolt, key(user)+org seq -> org id, written by
	// AddOrgMember and CreateOrg, not by add.
	OrgMemberList = List{Name: "org_members", Order: []byte("org_members")}
	// ComponentList counts components per owner (for Limits); nothing
	// lists them yet.
	ComponentList = List{Name: "components", Order: []byte("component_order"), Pos: []byte("component_pos")}
	WorkflowList  = List{Name: "workflows", Order: []byte("workflow_order"), Pos: []byte("workflow_pos")}
	DataStoreList = List{Name: "data_stores", Order: []byte("data_store_order"), Pos: []byte("data_store_pos")}
	// DeliveryList names the delivery lists in their cursors; each
	// engine keeps deliveries its own way.
	DeliveryList = List{Name: "deliveries"}
)

// Tables of records by id, values by tuple, sets and maps.
var (
	Webhooks      = Table{Bucket: []byte("webhooks"), Subject: "webhook"}
	Accounts      = Table{Bucket: []byte("accounts"), Subject: "account"}
	Users         = Table{Bucket: []byte("users"), Subject: "user"}
	UserKeys      = Table{Bucket: []byte("user_keys"), Subject: "user_key"} // key hash → user id
	Orgs          = Table{Bucket: []byte("orgs"), Subject: "org"}
	Meta          = Table{Bucket: []byte("meta"), Subject: "meta"}
	Dedupe        = Table{Bucket: []byte("dedupe"), Subject: "dedupe"}
	Usage         = Table{Bucket: []byte("usage"), Subject: "usage"} // account, day → Usage
	Stats         = Table{Bucket: []byte("stats"), Subject: "stats"} // resource, unix hour → its minutes' statistics (store/stats.go)
	Subs          = Table{Bucket: []byte("subs"), Subject: "sub"}
	SubTuples     = Table{Bucket: []byte("sub_tuple"), Subject: "sub_tuple"}
	SubEnds       = Table{Bucket: []byte("sub_ends"), Subject: "sub_ends"}
	AutoSubs      = Table{Bucket: []byte("auto_subs"), Subject: "auto"}
	AutoTuples    = Table{Bucket: []byte("auto_tuple"), Subject: "auto_tuple"}
	AutoListeners = Table{Bucket: []byte("auto_listeners"), Subject: "auto_lsn"}
	Sources       = Table{Bucket: []byte("sources"), Subject: "source"}
	Workflows     = Table{Bucket: []byte("workflows"), Subject: "wf", Large: true}    // steps bundle SDKs
	WorkflowSlugs = Table{Bucket: []byte("workflow_slugs"), Subject: "wf_slug"}       // owner, slug → workflow id
	SourceSlugs   = Table{Bucket: []byte("source_slugs"), Subject: "source_slug"}     // owner, slug → source id
	Components    = Table{Bucket: []byte("components"), Subject: "comp", Large: true} // code, bundle and maps
	ComponentUses = Table{Bucket: []byte("component_uses"), Subject: "comp_uses"}     // set: component id → the sources running it
	ComponentKeys = Table{Bucket: []byte("component_keys"), Subject: "comp_key"}      // owner, key → component id
	ComponentCode = Table{Bucket: []byte("component_code"), Subject: "comp_code"}     // map: owner → code → component id
	DataStores    = Table{Bucket: []byte("data_stores"), Subject: "ds"}               // data store id → DataStore
	DataStoreKeys = Table{Bucket: []byte("data_store_names"), Subject: "ds_name"}     // owner, name → data store id
	DataEntries   = Table{Bucket: []byte("data_entries"), Subject: "ds_entry"}        // data store id, key → entry
	PausedURLs    = Table{Bucket: []byte("paused_urls"), Subject: "paused_url"}       // before the paused table: workflow id, execution id → its event on $in; emptied when moved
	Paused        = Table{Bucket: []byte("paused"), Subject: "paused"}                // workflow id, execution id → the engine's state of a paused execution
	PausedIndex   = Table{Bucket: []byte("paused_index"), Subject: "paused_ix"}       // workflow id, execution id → store.PausedEntry: its due time and URLs' hash
	PausedCounts  = Table{Bucket: []byte("paused_counts"), Subject: "paused_n"}       // workflow id → how many executions it holds paused
)
