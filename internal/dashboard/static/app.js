// fount dashboard. Plain JavaScript with no build step: every page is
// built with DOM calls, never parsed from strings, so that nothing a component
// emits can become markup. The browser holds no API key, only the
// HttpOnly session cookie; requests that change anything send the
// session's CSRF token.
'use strict';

(() => {
  const state = { csrf: '', user: null, org: '', cleanups: [], keepFlash: false, routes: 0 };
  const main = document.getElementById('main');

  // h builds an element: h('a', {href: '#', onclick: f}, 'text', child).
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
      else if (k === 'class') el.className = v;
      else if (k === 'text') el.textContent = v;
      else if (v === true) el.setAttribute(k, '');
      else el.setAttribute(k, String(v));
    }
    for (const c of children.flat()) {
      if (c === undefined || c === null || c === false) continue;
      el.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return el;
  }

  class APIError extends Error {
    constructor(status, body) {
      const e = (body && body.error) || {};
      super(e.message || `The server answered ${status}.`);
      this.status = status;
      this.code = e.code || '';
      this.param = e.param || '';
    }
  }

  async function request(method, url, body) {
    const headers = { Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (method !== 'GET') headers['X-CSRF-Token'] = state.csrf;
    const res = await fetch(url, {
      method, headers, credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status === 204) return null;
    const data = await res.json().catch(() => null);
    if (!res.ok) {
      const err = new APIError(res.status, data);
      if (res.status === 401 && state.user) signedOut('Your session ended; sign in again.');
      throw err;
    }
    return data;
  }
  const api = (method, path, body) => request(method, '/v1' + path, body);
  const enc = encodeURIComponent;

  // The dashboard acts for the signed-in user, or for one of their
  // organizations (state.org): lists read that owner's resources, and
  // what is created goes there (org_id).
  const listOf = (kind) => (state.org ? `/orgs/${enc(state.org)}/${kind}` : `/users/me/${kind}`);
  const asOwner = (sep) => (state.org ? `${sep}org_id=${enc(state.org)}` : '');

  // flash shows a message; it outlives the next page change, so that a
  // form can say what it did and then navigate.
  function flash(message, kind = 'error') {
    state.keepFlash = kind !== 'error'; // success messages come before a navigation
    const el = document.getElementById('flash');
    el.className = kind;
    el.textContent = message;
    if (kind === 'info-sticky') el.className = 'info';
    else if (kind === 'info') setTimeout(() => { if (el.textContent === message) el.textContent = ''; }, 4000);
  }
  const clearFlash = () => { document.getElementById('flash').textContent = ''; };

  const fmtTime = (ms) => (ms ? new Date(ms).toLocaleString() : '—');
  function ago(ms) {
    if (!ms) return 'never';
    const s = Math.round((Date.now() - ms) / 1000);
    if (s < 5) return 'just now';
    if (s < 60) return `${s} s ago`;
    if (s < 3600) return `${Math.round(s / 60)} min ago`;
    if (s < 86400) return `${Math.round(s / 3600)} h ago`;
    return new Date(ms).toLocaleDateString();
  }
  const pretty = (v) => JSON.stringify(v, null, 2);
  const idTime = (id) => Number(String(id).split('-')[0]) || 0;

  // confirmDialog asks before something that cannot be undone.
  function confirmDialog(message, action) {
    return new Promise((resolve) => {
      const dlg = h('dialog', { 'aria-labelledby': 'confirm-title' },
        h('h2', { id: 'confirm-title', text: message }),
        h('form', { method: 'dialog', class: 'row' },
          h('button', { value: 'cancel', autofocus: true }, 'Cancel'),
          h('button', { value: 'ok', class: 'danger', id: 'confirm-ok' }, action)));
      dlg.addEventListener('close', () => { dlg.remove(); resolve(dlg.returnValue === 'ok'); });
      document.body.append(dlg);
      dlg.showModal();
    });
  }

  // busy disables a button while its work runs, and reports a failure.
  async function busy(button, work) {
    button.disabled = true;
    try {
      clearFlash();
      return await work();
    } catch (err) {
      flash(err.param ? `${err.message} (${err.param})` : err.message);
      return undefined;
    } finally {
      button.disabled = false;
    }
  }

  // onSubmit runs work when form is submitted, with button disabled
  // meanwhile and a failure flashed (see busy).
  function onSubmit(form, button, work) {
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      busy(button, work);
    });
  }

  function page(title, ...children) {
    document.title = `${title} · fount`;
    main.replaceChildren(...children.filter((c) => c !== null && c !== undefined && c !== false));
    main.focus({ preventScroll: true });
  }

  // ---- session ----

  function signedIn(session) {
    state.user = session;
    state.csrf = session.csrf_token;
    document.getElementById('nav').hidden = false;
    document.getElementById('who').hidden = false;
    document.getElementById('username').textContent = session.username || session.user_id;
    ownerChoice();
  }

  // ownerChoice offers the user's organizations beside the user, when
  // there are any.
  async function ownerChoice() {
    const holder = document.getElementById('owner-choice');
    holder.replaceChildren();
    let me;
    try { me = (await api('GET', '/users/me')).data; } catch (err) { return; }
    if (!me.orgs.length) return;
    const select = h('select', { id: 'owner' },
      h('option', { value: '', text: `${me.username} (you)` }),
      me.orgs.map((o) => h('option', { value: o.id, text: o.name || o.orgname })));
    select.value = state.org;
    select.addEventListener('change', () => { state.org = select.value; route(); });
    holder.append(h('label', { for: 'owner', class: 'inline', text: 'Acting as' }), select);
  }

  function signedOut(message) {
    state.user = null;
    state.csrf = '';
    state.org = '';
    document.getElementById('nav').hidden = true;
    document.getElementById('who').hidden = true;
    stopStreams();
    signInPage(message);
  }

  function signInPage(message) {
    const key = h('input', { type: 'password', id: 'api-key', name: 'api_key', autocomplete: 'off', required: true, 'aria-describedby': 'key-hint' });
    const error = h('p', { class: 'error-text', role: 'alert', id: 'signin-error', text: message || '' });
    const submit = h('button', { class: 'primary', type: 'submit' }, 'Sign in');
    const form = h('form', { class: 'panel signin', 'aria-labelledby': 'signin-title' },
      h('h1', { id: 'signin-title', text: 'Sign in to fount' }),
      h('label', { for: 'api-key', text: 'API key' }), key,
      h('p', { class: 'hint', id: 'key-hint', text: 'The key fount serve printed at first start, or one from POST /v1/users. The browser keeps only a session cookie, never the key.' }),
      error, submit);
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      error.textContent = '';
      submit.disabled = true;
      try {
        const res = await request('POST', '/ui/session', { api_key: key.value });
        signedIn(res.data);
        if (!location.hash || location.hash === '#/signin') location.hash = '#/sources';
        else route();
      } catch (err) {
        error.textContent = err.message;
        key.focus();
      } finally {
        submit.disabled = false;
      }
    });
    page('Sign in', form);
    key.focus();
  }

  document.getElementById('signout').addEventListener('click', async () => {
    try { await request('DELETE', '/ui/session'); } catch (err) { /* signed out either way */ }
    signedOut('You are signed out.');
  });

  // ---- routing ----

  function stopStreams() {
    for (const stop of state.cleanups.splice(0)) stop();
  }

  // Each route renders with its own view: page, unless a later route
  // has started meanwhile (a page still waiting on the API when the user
  // moves on must not cover the page they moved to).
  const routes = {
    sources: (view, id, sub) => (id === 'new' ? newSourcePage(view) : id ? sourcePage(view, id, sub) : sourcesPage(view)),
    workflows: (view, id, sub) => (id === 'new' ? newWorkflowPage(view) : id ? workflowPage(view, id, sub) : workflowsPage(view)),
    executions: (view, id) => executionPage(view, id),
    steps: (view, workflowID, step) => stepPage(view, workflowID, step),
    webhooks: (view, id) => (id ? webhookPage(view, id) : webhooksPage(view)),
    accounts: (view) => accountsPage(view),
    usage: (view) => usagePage(view),
  };

  async function route() {
    // A success message outlives the one page change that follows it
    // (an action's own navigation or re-render), and no more.
    if (!state.keepFlash) clearFlash();
    state.keepFlash = false;
    stopStreams();
    if (!state.user) return;
    const seq = ++state.routes;
    const current = () => seq === state.routes;
    const view = (...args) => { if (current()) page(...args); };
    const [name, id, sub] = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
    const show = routes[name] || routes.sources;
    for (const a of document.querySelectorAll('nav a')) {
      if (a.getAttribute('href') === `#/${name || 'sources'}`) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
    try {
      await show(view, id, sub);
    } catch (err) {
      if (err instanceof APIError && err.status === 401) return;
      view('Error', h('h1', { text: 'Something went wrong' }), h('p', { class: 'error-text', role: 'alert', text: err.message }));
    }
  }
  window.addEventListener('hashchange', () => route());

  // ---- shared pieces ----

  function statusBadge(active) {
    return h('span', { class: active ? 'badge ok' : 'badge off', text: active ? 'active' : 'paused' });
  }

  function table(headers, rows, empty) {
    if (!rows.length) return h('p', { class: 'muted panel', text: empty });
    return h('div', { class: 'scroll' }, h('table', {},
      h('thead', {}, h('tr', {}, headers.map((t) => h('th', { scope: 'col', class: t.startsWith('~') ? 'hide-narrow' : '', text: t.replace(/^~/, '') })))),
      h('tbody', {}, rows)));
  }

  // tabs shows one panel at a time; each tab's content is built on first
  // open and its streams stop when the page changes.
  function tabs(baseHash, list, selected) {
    const bar = h('div', { class: 'tabs', role: 'tablist' });
    const panel = h('div', { role: 'tabpanel', id: 'tabpanel' });
    let current = list.find((t) => t.id === selected) || list[0];
    let stops = [];
    function open(t, focus) {
      for (const stop of stops.splice(0)) stop();
      current = t;
      for (const b of bar.children) {
        const on = b.dataset.tab === t.id;
        b.setAttribute('aria-selected', on ? 'true' : 'false');
        b.tabIndex = on ? 0 : -1;
        if (on && focus) b.focus();
      }
      panel.setAttribute('aria-labelledby', `tab-${t.id}`);
      // Only while the address is still this page's: a page built late,
      // after the user moved on, must not rewrite the address they moved to.
      if (location.hash === baseHash || location.hash.startsWith(`${baseHash}/`)) history.replaceState(null, '', `${baseHash}/${t.id}`);
      panel.replaceChildren(h('p', { class: 'muted', text: 'Loading…' }));
      Promise.resolve(t.render((stop) => stops.push(stop))).then((content) => {
        if (current === t) panel.replaceChildren(content);
      }).catch((err) => { if (current === t) panel.replaceChildren(h('p', { class: 'error-text', role: 'alert', text: err.message })); });
    }
    list.forEach((t, i) => {
      const b = h('button', { type: 'button', role: 'tab', id: `tab-${t.id}`, 'data-tab': t.id, 'aria-controls': 'tabpanel', text: t.label });
      b.addEventListener('click', () => open(t));
      b.addEventListener('keydown', (ev) => {
        const step = { ArrowRight: 1, ArrowLeft: -1 }[ev.key];
        if (step) open(list[(i + step + list.length) % list.length], true);
      });
      bar.append(b);
    });
    state.cleanups.push(() => { for (const stop of stops.splice(0)) stop(); });
    open(current);
    return [bar, panel];
  }

  function eventPreview(ev) {
    if (ev.metadata && ev.metadata.summary) return ev.metadata.summary;
    const e = ev.event;
    if (e && e.error && (e.error.name || e.error.message)) return `${e.error.name || 'Error'}: ${e.error.message || ''}`;
    if (e && typeof e.msg === 'string') return e.msg;
    const text = JSON.stringify(e);
    return text && text.length > 160 ? text.slice(0, 160) + '…' : text;
  }

  function eventItem(ev, isNew) {
    const body = h('pre', { class: 'event-json', hidden: true, tabindex: 0, 'aria-label': `Event ${ev.id} as JSON` });
    const toggle = h('button', { type: 'button', 'aria-expanded': 'false', class: 'event-row', 'data-event-id': ev.id },
      h('span', { class: 'time', text: fmtTime(ev.indexed_at_ms || idTime(ev.id)) }),
      h('span', { class: 'preview mono', text: eventPreview(ev) }));
    toggle.addEventListener('click', () => {
      const open = body.hidden;
      if (open && !body.textContent) body.textContent = pretty(ev.event);
      body.hidden = !open;
      toggle.setAttribute('aria-expanded', String(open));
    });
    return h('li', { class: isNew ? 'new' : '', 'data-event-id': ev.id }, toggle, body);
  }

  // eventLog lists the last 100 events of a channel, newest first, and
  // then adds each new one as the server streams it (SSE named "event").
  async function eventLog(listPath, streamPath, onStop, emptyText) {
    const res = await api('GET', `${listPath}${listPath.includes('?') ? '&' : '?'}limit=100&expand=event`);
    const seen = new Set();
    const list = h('ul', { class: 'events', 'aria-live': 'polite', 'aria-label': 'Events, newest first' });
    const empty = h('p', { class: 'muted panel', text: emptyText });
    for (const ev of res.data) { seen.add(ev.id); list.append(eventItem(ev, false)); }
    empty.hidden = res.data.length > 0;
    const status = h('p', { class: 'hint stream-status', text: streamPath ? 'Connecting to the live stream…' : '' });
    if (streamPath) {
      const newest = res.data.length ? `${streamPath.includes('?') ? '&' : '?'}last_event_id=${enc(res.data[0].id)}` : '';
      const es = new EventSource(`/v1${streamPath}${newest}`, { withCredentials: true });
      es.addEventListener('event', (msg) => {
        const ev = JSON.parse(msg.data);
        if (seen.has(ev.id)) return;
        seen.add(ev.id);
        empty.hidden = true;
        list.prepend(eventItem(ev, true));
        while (list.children.length > 100) list.lastChild.remove();
      });
      es.addEventListener('open', () => { status.textContent = 'Live: new events appear here as they arrive.'; });
      es.addEventListener('error', () => {
        status.textContent = es.readyState === EventSource.CLOSED
          ? 'The live stream ended (signed out, or the server stopped); reload the page to follow again.'
          : 'Reconnecting to the live stream…';
      });
      onStop(() => es.close());
    }
    return h('div', {}, status, empty, list);
  }

  function kv(pairs) {
    return h('dl', { class: 'kv' }, pairs.filter(Boolean).flatMap(([k, v]) => [h('dt', { text: k }), h('dd', {}, v)]));
  }

  function showProp(raw) {
    if (raw === '[redacted]') return h('span', { class: 'muted', text: '•••••• (secret)' });
    if (raw && typeof raw === 'object' && raw.endpoint_url) return h('code', { text: raw.endpoint_url });
    return h('code', { text: typeof raw === 'string' ? raw : JSON.stringify(raw) });
  }

  // ---- props forms ----

  // propField renders the input of one configurable prop; read() returns
  // its value, or undefined to leave it out.
  function propField(prop, current, accounts, form) {
    const id = `prop-${prop.name}`;
    const label = h('label', { for: id, text: `${prop.label || prop.name}${prop.optional ? ' (optional)' : ''}` });
    const hints = [];
    if (prop.description) hints.push(prop.description);
    const hintEl = () => (hints.length ? h('p', { class: 'hint', id: `${id}-hint`, text: hints.join(' ') }) : null);
    const def = current !== undefined ? current : prop.default;
    let input;
    let read;
    const options = Array.isArray(prop.options) ? prop.options.map((o) => (o && typeof o === 'object' ? o : { label: String(o), value: o })) : null;
    if (typeof current === 'string' && /\{\{[\s\S]*?\}\}/.test(current) && prop.type !== 'string') {
      // A step's expression ({{steps...}}) has a value only when the
      // workflow runs: it stays text, whatever the prop's type.
      input = h('input', { type: 'text', id, value: current, 'aria-describedby': `${id}-hint` });
      hints.push(`An expression, evaluated at each execution; or a ${prop.type} value.`);
      return { el: h('div', {}, label, input, hintEl()), read: () => (input.value === '' ? undefined : expressionOr(input.value)) };
    }
    switch (prop.type) {
      case '$.interface.http':
      case '$.interface.apphook':
        return { el: h('div', {}, h('p', { class: 'hint', text: `${prop.name}: an HTTP endpoint, created at deploy.` })), read: () => undefined };
      case '$.service.db':
        return { el: null, read: () => undefined };
      case 'dir':
        return { el: h('div', {}, h('p', { class: 'hint', text: `${prop.name}: a directory for files, /tmp while the component runs.` })), read: () => undefined };
      case 'sql': {
        input = h('textarea', { id, class: 'code' });
        input.style.minHeight = '5em';
        input.value = def && typeof def === 'object' ? def.query || '' : def || '';
        hints.push('A SQL query.');
        // The query is edited here; params given through the API are kept.
        read = () => {
          if (!input.value.trim()) return undefined;
          const params = def && typeof def === 'object' && Array.isArray(def.params) ? def.params : [];
          return params.length ? { query: input.value, params } : input.value;
        };
        break;
      }
      case 'alert':
        return { el: h('p', { class: `alert alert-${prop.alertType || 'info'}`, role: 'note', text: prop.content || prop.label || prop.name }), read: () => undefined };
      case '$.interface.timer': {
        const t = def || {};
        input = h('input', { type: 'number', id, min: 1, value: t.intervalSeconds || t.interval_seconds || '' });
        const cron = h('input', { type: 'text', id: `${id}-cron`, value: t.cron || '', placeholder: '*/15 * * * *' });
        return {
          el: h('div', {}, h('label', { for: id, text: `${prop.label || prop.name}: every N seconds` }), input,
            h('label', { for: `${id}-cron`, text: 'or on a cron schedule' }), cron),
          read: () => (cron.value.trim() ? { cron: cron.value.trim() } : input.value ? { intervalSeconds: Number(input.value) } : undefined),
        };
      }
      case 'app': {
        input = h('select', { id }, h('option', { value: '', text: '— choose a connected account —' }),
          accounts.filter((a) => a.app === prop.app).map((a) => h('option', { value: a.id, text: `${a.name} (${a.id})` })));
        if (def && def.authProvisionId) input.value = def.authProvisionId;
        hints.push(`Connected accounts of app ${prop.app}; add one on the Accounts page or with fount accounts create.`);
        read = () => (input.value ? { authProvisionId: input.value } : undefined);
        break;
      }
      case 'boolean':
        input = h('input', { type: 'checkbox', id, checked: def === true });
        return { el: h('div', {}, h('label', { class: 'check' }, input, prop.label || prop.name), hintEl()), read: () => input.checked };
      case 'integer':
        input = h('input', { type: 'number', id, step: 1, min: prop.min, max: prop.max, value: def ?? '' });
        read = () => (input.value === '' ? undefined : Number(input.value));
        break;
      case 'string[]':
        input = h('textarea', { id });
        input.value = Array.isArray(def) ? def.join('\n') : '';
        hints.push('One value per line.');
        read = () => (input.value.trim() ? input.value.split('\n').map((s) => s.trim()).filter(Boolean) : undefined);
        break;
      case 'string':
        if (options) {
          input = h('select', { id }, h('option', { value: '', text: '— choose —' }),
            options.map((o, i) => h('option', { value: String(i), text: o.label ?? String(o.value) })));
          const at = options.findIndex((o) => o.value === def);
          if (at >= 0) input.value = String(at);
          read = () => (input.value === '' ? undefined : options[Number(input.value)].value);
          break;
        }
        input = h('input', { type: prop.secret ? 'password' : 'text', id, autocomplete: 'off' });
        if (prop.secret && current === '[redacted]') {
          input.placeholder = 'unchanged';
          hints.push('A secret: leave it empty to keep the stored value.');
          read = () => (input.value === '' ? '[redacted]' : input.value);
        } else {
          input.value = typeof def === 'string' ? def : '';
          read = () => (input.value === '' ? undefined : input.value);
        }
        break;
      default:
        input = h('textarea', { id, class: 'code' });
        input.style.minHeight = '5em';
        input.value = def === undefined ? '' : pretty(def);
        hints.push(`A ${prop.type} value, as JSON.`);
        read = () => {
          if (!input.value.trim()) return undefined;
          try { return JSON.parse(input.value); } catch (err) { throw new Error(`${prop.name} is not valid JSON: ${err.message}`); }
        };
    }
    if (prop.reloadProps) hints.push('Changing it may change the other props.');
    if (hints.length) input.setAttribute('aria-describedby', `${id}-hint`);
    if (!prop.optional && prop.type !== 'boolean' && current === undefined && prop.default === undefined) input.required = true;
    const extra = prop.remoteOptions && prop.type !== 'app' ? remoteOptions(prop, input, form) : null;
    return { el: h('div', {}, label, input, extra, hintEl()), read };
  }

  // expressionOr reads a field that held an expression: the expression
  // as text, or else the JSON value typed in its place.
  function expressionOr(text) {
    if (/\{\{[\s\S]*?\}\}/.test(text)) return text;
    try { return JSON.parse(text); } catch (err) { return text; }
  }

  // remoteOptions lets a prop's options method, run by the server with the
  // props configured so far, fill the prop's input, a page at a time.
  function remoteOptions(prop, input, form) {
    const id = `prop-${prop.name}-options`;
    const choices = h('select', { id, hidden: true, 'aria-label': `Options of ${prop.label || prop.name}` });
    const load = h('button', { type: 'button', class: 'load-options', text: 'Load options' });
    const more = h('button', { type: 'button', hidden: true, text: 'More options' });
    const values = [];
    let page = 0;
    let context;
    async function fetchPage(button) {
      await busy(button, async () => {
        const res = await api('POST', form.paths.configure, {
          prop_name: prop.name, configured_props: form.read(), page, prev_context: context,
        });
        if (page === 0) { choices.replaceChildren(h('option', { value: '', text: '— choose —' })); values.length = 0; }
        for (const o of res.data.options) {
          const opt = o && typeof o === 'object' && 'value' in o ? o : { label: String(o), value: o };
          values.push(opt.value);
          choices.append(h('option', { value: String(values.length - 1), text: opt.label ?? String(opt.value) }));
        }
        context = res.data.context;
        page += 1;
        more.hidden = context === undefined;
        choices.hidden = false;
        choices.focus();
      });
    }
    load.addEventListener('click', () => { page = 0; context = undefined; fetchPage(load); });
    more.addEventListener('click', () => fetchPage(more));
    choices.addEventListener('change', () => {
      if (choices.value === '') return;
      const v = values[Number(choices.value)];
      const text = typeof v === 'string' ? v : JSON.stringify(v);
      if (input.tagName === 'TEXTAREA' && prop.type === 'string[]') input.value = input.value.trim() ? `${input.value.trim()}\n${text}` : text;
      else input.value = text;
      input.dispatchEvent(new Event('change', { bubbles: true }));
    });
    return h('div', { class: 'row' }, load, choices, more);
  }

  // propsForm is the form of a component's props. It asks the server for
  // the props with those additionalProps adds, at once and again whenever
  // a reloadProps prop changes, and keeps the values entered so far.
  // propsForm is a form of a component's props, reloaded with those its
  // additionalProps adds as reloadProps props change. paths name the
  // API's calls for the props and a prop's options: a saved component's
  // by default, a deployed step's for a step.
  function propsForm(comp, current, accounts, paths) {
    const el = h('div', { class: 'props-form' });
    const status = h('p', { class: 'hint', role: 'status' });
    let fields = [];
    const form = {
      paths: paths || { props: `/components/${enc(comp.id)}/props`, configure: `/components/${enc(comp.id)}/configure` },
      read: () => {
        const out = {};
        for (const [name, f] of fields) {
          const v = f.read();
          if (v !== undefined) out[name] = v;
        }
        return out;
      },
    };
    function render(props, values) {
      fields = props.map((p) => [p.name, propField(p, values ? values[p.name] : undefined, accounts, form)]);
      el.replaceChildren(...fields.map(([, f]) => f.el).filter(Boolean), status);
      props.forEach((p, i) => {
        if (p.reloadProps && fields[i][1].el) fields[i][1].el.addEventListener('change', () => reload());
      });
    }
    let reloads = 0; // the latest reload wins, whatever order answers come in
    async function reload() {
      const mine = ++reloads;
      let values;
      try { values = Object.assign({}, current || {}, form.read()); } catch (err) { return; }
      status.textContent = 'Reading the props…';
      try {
        const res = await api('POST', form.paths.props, { configured_props: values });
        if (mine !== reloads) return;
        const focused = document.activeElement && document.activeElement.id;
        let latest = {};
        try { latest = form.read(); } catch (err) { /* keep what was sent */ }
        render(res.data.configurable_props, Object.assign(values, latest));
        if (focused && document.getElementById(focused)) document.getElementById(focused).focus();
        status.textContent = '';
      } catch (err) {
        if (mine === reloads) status.textContent = `The props could not be reloaded: ${err.message}`;
      }
    }
    render(comp.configurable_props, current);
    form.ready = reload();
    return { el, read: form.read, ready: form.ready };
  }

  async function myAccounts() {
    try { return (await api('GET', `${listOf('accounts')}?limit=100`)).data; } catch (err) { return []; }
  }

  // ---- statistics over time ----

  // The ranges a resource's charts show: a minute a point for the last
  // hour and day (1,440 points), ten minutes for the week.
  const statsRanges = [
    { id: 'hour', label: 'Last hour', seconds: 3600, step: 60 },
    { id: 'day', label: 'Last day', seconds: 86400, step: 60 },
    { id: 'week', label: 'Last week', seconds: 7 * 86400, step: 600 },
  ];

  // statsOf reads a resource's statistics over the last seconds, a point
  // per step, ending with the current minute.
  function statsOf(path, seconds, step) {
    return api('GET', `${path}/stats?${statsRange(seconds, step)}`).then((r) => r.data);
  }

  // statsRange is the query of the last seconds, a point per step,
  // ending with the current minute.
  function statsRange(seconds, step) {
    const to = Math.floor(Date.now() / 60000) * 60 + 60;
    return `from=${to - seconds}&to=${to}&step=${step}`;
  }

  const svgNS = 'http://www.w3.org/2000/svg';
  function svg(tag, attrs) {
    const el = document.createElementNS(svgNS, tag);
    for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
    return el;
  }

  // seriesPath is an SVG path of values in a box of n by height: a step
  // line, one segment per point, so thousands of points stay one element.
  function seriesPath(values, top, height) {
    let d = '';
    values.forEach((v, i) => {
      const y = (height - (v / top) * height).toFixed(2);
      d += `${i ? 'L' : 'M'}${i} ${y}H${i + 1}`;
    });
    return d;
  }

  // chart draws series ({name, values, color, fill}) over the same
  // points as one SVG. Each path carries its values (data-values) and the
  // chart a description, for screen readers and tests; the pointer shows
  // a point's values.
  function chart(title, unit, series, from, step) {
    const n = series[0].values.length;
    const top = Math.max(1, ...series.flatMap((s) => s.values));
    const height = 100;
    const total = (s) => s.values.reduce((a, b) => a + b, 0);
    const summary = series.map((s) => unit === 'count' ? `${s.name}: ${total(s)} in all` : `${s.name}: up to ${Math.max(0, ...s.values)} ms`).join('; ');
    const plot = svg('svg', { viewBox: `0 0 ${n} ${height}`, preserveAspectRatio: 'none', class: 'chart-plot', role: 'img', 'aria-label': `${title}. ${summary}.` });
    for (const frac of [0.5, 1]) plot.append(svg('line', { x1: 0, x2: n, y1: height - frac * height, y2: height - frac * height, class: 'chart-grid' }));
    for (const s of series) {
      const d = seriesPath(s.values, top, height);
      if (s.fill) plot.append(svg('path', { d: `${d}V${height}H0Z`, class: `chart-fill ${s.color}` }));
      plot.append(svg('path', { d, class: `chart-line ${s.color}`, 'data-series': s.name, 'data-values': s.values.join(','), 'vector-effect': 'non-scaling-stroke' }));
    }
    const cursor = svg('line', { x1: 0, x2: 0, y1: 0, y2: height, class: 'chart-cursor', 'vector-effect': 'non-scaling-stroke', visibility: 'hidden' });
    plot.append(cursor);
    const readout = h('div', { class: 'chart-readout muted', 'aria-hidden': 'true' }, '\u00a0');
    plot.addEventListener('pointermove', (ev) => {
      const box = plot.getBoundingClientRect();
      const i = Math.min(n - 1, Math.max(0, Math.floor(((ev.clientX - box.left) / box.width) * n)));
      cursor.setAttribute('x1', i + 0.5);
      cursor.setAttribute('x2', i + 0.5);
      cursor.setAttribute('visibility', 'visible');
      const at = new Date((from + i * step) * 1000).toLocaleString();
      readout.textContent = `${at}: ${series.map((s) => `${s.name} ${s.values[i]}${unit === 'ms' ? ' ms' : ''}`).join(', ')}`;
    });
    plot.addEventListener('pointerleave', () => { cursor.setAttribute('visibility', 'hidden'); readout.textContent = '\u00a0'; });
    const axisTop = unit === 'ms' ? `${top} ms` : String(top);
    return h('figure', { class: 'chart', 'data-chart': title },
      h('figcaption', {}, h('span', { text: title }), h('span', { class: 'chart-legend' },
        series.map((s) => h('span', { class: `legend ${s.color}`, text: s.name })))),
      h('div', { class: 'chart-body' }, h('div', { class: 'chart-axis muted', text: axisTop }), plot),
      h('div', { class: 'chart-x muted' }, h('span', { text: new Date(from * 1000).toLocaleString() }), h('span', { text: 'now' })),
      readout);
  }

  // statsTotals shows a range's totals as numbers, each named for tests
  // by data-total.
  function statsTotals(totals, fields) {
    return h('dl', { class: 'totals' }, fields.map(([key, label, fmt]) => h('div', {},
      h('dt', { text: label }), h('dd', { 'data-total': key, text: fmt ? fmt(totals[key]) : String(totals[key]) }))));
  }

  // The charts and totals each kind of resource shows.
  const statsViews = {
    source: {
      totals: [['events', 'Events'], ['errors', 'Errors'], ['runs', 'Runs'], ['runs_failed', 'Failed runs'], ['run_ms_p50', 'Run p50', ms], ['run_ms_p95', 'Run p95', ms]],
      charts: (s) => [
        ['Events and errors', 'count', [{ name: 'events', values: s.events, color: 'c-accent', fill: true }, { name: 'errors', values: s.errors, color: 'c-bad' }]],
        ['Run duration', 'ms', [{ name: 'p50', values: s.run_ms_p50, color: 'c-accent' }, { name: 'p95', values: s.run_ms_p95, color: 'c-warn' }]],
      ],
    },
    webhook: {
      totals: [['delivered', 'Delivered'], ['delivery_failures', 'Failed attempts'], ['latency_ms_p50', 'Latency p50', ms], ['latency_ms_p95', 'Latency p95', ms]],
      charts: (s) => [
        ['Deliveries and failures', 'count', [{ name: 'delivered', values: s.delivered, color: 'c-accent', fill: true }, { name: 'failed', values: s.delivery_failures, color: 'c-bad' }]],
        ['Delivery latency', 'ms', [{ name: 'p50', values: s.latency_ms_p50, color: 'c-accent' }, { name: 'p95', values: s.latency_ms_p95, color: 'c-warn' }]],
      ],
    },
  };
  statsViews.workflow = {
    totals: [['runs', 'Executions'], ['runs_failed', 'Failed'], ['events', 'Events'], ['errors', 'Errors'], ['run_ms_p95', 'Duration p95', ms], ['delivered', 'Sends delivered']],
    charts: (s) => [
      ['Executions and errors', 'count', [{ name: 'executions', values: s.runs, color: 'c-accent', fill: true }, { name: 'failed', values: s.runs_failed, color: 'c-bad' }]],
      ['Execution duration', 'ms', [{ name: 'p50', values: s.run_ms_p50, color: 'c-accent' }, { name: 'p95', values: s.run_ms_p95, color: 'c-warn' }]],
      ...statsViews.webhook.charts(s),
    ],
  };
  function ms(v) { return `${v} ms`; }

  // activityPanel charts a resource's statistics over a range the user
  // picks, and reads them again every 30 s while the page is open.
  function activityPanel(kind, path) {
    const view = statsViews[kind];
    const body = h('div', { class: 'activity-body' }, h('p', { class: 'muted', text: 'Loading…' }));
    let range = statsRanges[0];
    const buttons = statsRanges.map((r) => {
      const b = h('button', { type: 'button', 'data-range': r.id, 'aria-pressed': r === range ? 'true' : 'false', text: r.label });
      b.addEventListener('click', () => { range = r; for (const x of buttons) x.setAttribute('aria-pressed', x === b ? 'true' : 'false'); load(); });
      return b;
    });
    let loading = 0;
    async function load() {
      const mine = ++loading;
      try {
        const st = await statsOf(path, range.seconds, range.step);
        if (mine !== loading) return;
        body.replaceChildren(statsTotals(st.totals, view.totals),
          h('div', { class: 'charts' }, view.charts(st.series).map(([title, unit, series]) => chart(title, unit, series, st.from, st.step))));
        body.dataset.range = range.id;
        body.dataset.loaded = String(mine);
      } catch (err) {
        if (mine === loading) body.replaceChildren(h('p', { class: 'error-text', role: 'alert', text: err.message }));
      }
    }
    const timer = setInterval(load, 30000);
    state.cleanups.push(() => clearInterval(timer));
    load();
    return h('section', { class: 'panel activity', 'aria-labelledby': 'activity-title' },
      h('div', { class: 'row spread' }, h('h2', { id: 'activity-title', text: 'Activity' }), h('div', { class: 'row range-choice', role: 'group', 'aria-label': 'Range' }, buttons)),
      body);
  }

  // sparkCells are a list's cells of sparklines, one a row (by the
  // row's id): one series over the last day, in hours, and its total,
  // every row's read in one request.
  function sparkCells(items, key) {
    const cells = new Map(items.map((x) => [x.id, h('td', { class: 'spark-cell', text: '…' })]));
    if (items.length) {
      api('GET', `/stats?ids=${items.map((x) => enc(x.id)).join(',')}&${statsRange(86400, 3600)}`).then((r) => {
        for (const st of r.data) if (cells.has(st.id)) drawSpark(cells.get(st.id), st, key);
      }).catch(() => { for (const cell of cells.values()) cell.textContent = '?'; });
    }
    return (id) => cells.get(id);
  }

  function drawSpark(cell, st, key) {
    const values = st.series[key];
    const top = Math.max(1, ...values);
    const plot = svg('svg', { viewBox: `0 0 ${values.length} 20`, preserveAspectRatio: 'none', class: 'sparkline', role: 'img', 'aria-label': `${st.totals[key]} ${key} in the last day`, 'data-values': values.join(',') });
    plot.append(svg('path', { d: `${seriesPath(values, top, 20)}V20H0Z`, class: 'chart-fill c-accent' }));
    plot.append(svg('path', { d: seriesPath(values, top, 20), class: 'chart-line c-accent', 'vector-effect': 'non-scaling-stroke' }));
    cell.replaceChildren(plot, h('span', { class: 'spark-total', text: String(st.totals[key]) }));
  }

  // ---- sources ----

  async function sourcesPage(view) {
    const res = await api('GET', `${listOf('sources')}?limit=100`);
    const spark = sparkCells(res.data, 'events');
    const rows = res.data.map((s) => {
      const [last, errors] = statsCells(`/sources/${enc(s.id)}/event_summaries?limit=1`, (ev) => ev.indexed_at_ms,
        `/sources/${enc(s.id)}/event_summaries?limit=100&event_name=${enc('$errors')}`);
      return h('tr', {},
        h('td', {}, h('a', { href: `#/sources/${enc(s.id)}`, text: s.name }), h('div', { class: 'hint mono', text: s.id })),
        h('td', {}, statusBadge(s.active)), spark(s.id), last, errors,
        h('td', { class: 'hide-narrow', text: fmtTime(s.created_at * 1000) }));
    });
    view('Sources',
      h('div', { class: 'row spread' }, h('h1', { text: 'Sources' }), h('a', { class: 'button primary', href: '#/sources/new' }, 'New source')),
      h('p', { class: 'muted', text: `${res.page_info.total_count} source${res.page_info.total_count === 1 ? '' : 's'}.` }),
      table(['Name', 'Status', 'Events, last day', 'Last event', 'Errors', '~Created'], rows, 'No sources yet. Deploy one with New source, or with fount deploy.'));
  }

  // statsCells are a list row's "last" and "errors" cells, filled when
  // their reads answer: when the newest item of lastPath happened (read
  // by lastTime), and how many events errorsPath holds (100+ past a page).
  function statsCells(lastPath, lastTime, errorsPath) {
    const last = h('td', { class: 'last-event', text: '…' });
    const errors = h('td', { class: 'error-count', text: '…' });
    Promise.all([api('GET', lastPath), api('GET', errorsPath)]).then(([newest, failed]) => {
      last.textContent = newest.data.length ? ago(lastTime(newest.data[0])) : 'never';
      const n = failed.data.length;
      errors.replaceChildren(n ? h('span', { class: 'badge bad', text: n === 100 ? '100+' : String(n) }) : '0');
    }).catch(() => {
      last.textContent = '?';
      errors.textContent = '?';
    });
    return [last, errors];
  }

  async function sourcePage(view, id, sub) {
    const src = (await api('GET', `/sources/${enc(id)}`)).data;
    const base = `#/sources/${enc(id)}`;
    const endpoints = Object.entries(src.configured_props).filter(([, v]) => v && typeof v === 'object' && v.endpoint_url);
    const toggle = h('button', { type: 'button', id: 'toggle-active', text: src.active ? 'Pause' : 'Activate' });
    toggle.addEventListener('click', () => busy(toggle, async () => {
      await api('PUT', `/sources/${enc(id)}`, { component_id: src.component_id, active: !src.active });
      flash(src.active ? 'Source paused.' : 'Source activated.', 'info');
      route();
    }));
    const del = h('button', { type: 'button', class: 'danger', id: 'delete-source', text: 'Delete' });
    del.addEventListener('click', async () => {
      if (!(await confirmDialog(`Delete ${src.name}, its events and its subscriptions?`, 'Delete source'))) return;
      await busy(del, async () => {
        await api('DELETE', `/sources/${enc(id)}`);
        flash(`Deleted ${src.name}.`, 'info');
        location.hash = '#/sources';
      });
    });
    view(src.name,
      h('div', { class: 'row spread' },
        h('div', {}, h('h1', { text: src.name }), h('div', { class: 'row' }, h('code', { text: src.id }), statusBadge(src.active))),
        h('div', { class: 'row' }, toggle, del)),
      endpoints.length ? h('div', { class: 'panel' }, h('h2', { text: 'Endpoint' }),
        endpoints.map(([name, v]) => h('p', {}, h('span', { class: 'muted', text: `${name}: ` }), h('code', { class: 'endpoint-url', text: v.endpoint_url }))),
        h('p', { class: 'hint', text: 'POST (or any method) to this URL to run the source.' })) : null,
      activityPanel('source', `/sources/${enc(id)}`),
      h('div', { class: 'panel' }, h('h2', { text: 'Configured props' }),
        Object.keys(src.configured_props).length ? kv(Object.entries(src.configured_props).map(([k, v]) => [k, showProp(v)])) : h('p', { class: 'muted', text: 'None.' }),
        h('p', { class: 'hint', text: `Component ${src.component_id}; updated ${fmtTime(src.updated_at * 1000)}.` })),
      ...tabs(base, [
        { id: 'events', label: 'Events', render: (stop) => eventLog(`/sources/${enc(id)}/event_summaries`, `/sources/${enc(id)}/sse`, stop, 'No events yet.') },
        { id: 'logs', label: 'Logs', render: (stop) => eventLog(`/sources/${enc(id)}/event_summaries?event_name=${enc('$logs')}`, `/sources/${enc(id)}/sse?event_name=${enc('$logs')}`, stop, 'No logs yet: console output of runs appears here.') },
        { id: 'errors', label: 'Errors', render: (stop) => eventLog(`/sources/${enc(id)}/event_summaries?event_name=${enc('$errors')}`, `/sources/${enc(id)}/sse?event_name=${enc('$errors')}`, stop, 'No errors.') },
        { id: 'settings', label: 'Settings', render: async () => h('div', {}, await sourceSettings(src), await subscribeForm(src)) },
      ], sub));
  }

  async function sourceSettings(src) {
    const [comp, accounts] = await Promise.all([api('GET', `/components/${enc(src.component_id)}`), myAccounts()]);
    const name = h('input', { type: 'text', id: 'source-name', value: src.name });
    const form = propsForm(comp.data, src.configured_props, accounts);
    await form.ready;
    const save = h('button', { type: 'submit', class: 'primary', text: 'Save' });
    const el = h('form', { class: 'panel', 'aria-label': 'Source settings' },
      h('label', { for: 'source-name', text: 'Name' }), name, form.el, h('p', {}, save));
    onSubmit(el, save, async () => {
      const res = await api('PUT', `/sources/${enc(src.id)}`, { component_id: src.component_id, active: src.active, name: name.value, configured_props: form.read() });
      const changed = res.data.updated_at !== src.updated_at || res.data.name !== src.name;
      flash(changed ? 'Saved.' : 'Nothing changed.', 'info');
      route();
    });
    return el;
  }

  function newSourcePage(view) {
    const code = h('textarea', { id: 'component-code', class: 'code', spellcheck: 'false', 'aria-describedby': 'code-hint' });
    const key = h('input', { type: 'text', id: 'registry-key', placeholder: 'e.g. http-new-requests', 'aria-describedby': 'key-hint' });
    const next = h('button', { type: 'submit', class: 'primary', id: 'read-props', text: 'Continue' });
    const second = h('div', {});
    const step1 = h('form', { class: 'panel', 'aria-label': 'Component' },
      h('label', { for: 'component-code', text: 'Component code' }), code,
      h('p', { class: 'hint', id: 'code-hint', text: 'A source module: export default { name, version, props, async run(event) { this.$emit(...) } }. npm imports are resolved at deploy.' }),
      h('label', { for: 'registry-key', text: 'or a published component, by registry key' }), key,
      h('p', { class: 'hint', id: 'key-hint', text: 'Used when the code box is empty.' }),
      h('p', {}, next));
    onSubmit(step1, next, async () => {
      const comp = code.value.trim()
        ? (await api('POST', `/components${asOwner('?')}`, { component_code: code.value })).data
        : key.value.trim()
          ? await savedFromRegistry(key.value.trim())
          : (() => { throw new Error('Paste the component code, or give a registry key.'); })();
      second.replaceChildren(await deployForm(comp, await myAccounts()));
      second.querySelector('input, select, textarea, button').focus();
    });
    view('New source', h('h1', { text: 'New source' }), step1, second);
  }

  // savedFromRegistry saves a published component as one of yours, as
  // fount deploy KEY does, so that a source can be deployed from it.
  async function savedFromRegistry(key) {
    const published = (await api('GET', `/components/registry/${enc(key)}`)).data;
    return (await api('POST', `/components${asOwner('?')}`, { component_code: published.code })).data;
  }

  async function deployForm(comp, accounts) {
    const name = h('input', { type: 'text', id: 'source-name', placeholder: comp.key || comp.name, 'aria-describedby': 'name-hint' });
    const form = propsForm(comp, undefined, accounts);
    const deploy = h('button', { type: 'submit', class: 'primary', id: 'deploy', text: 'Deploy' });
    const el = h('form', { class: 'panel', 'aria-label': 'Props' },
      h('h2', { text: `${comp.name} ${comp.version}` }),
      h('p', { class: 'hint', text: `${comp.type} component ${comp.id}` }),
      h('label', { for: 'source-name', text: 'Name (optional)' }), name,
      h('p', { class: 'hint', id: 'name-hint', text: 'Default: the component\'s name, made unique.' }),
      form.el, h('p', {}, deploy));
    await form.ready;
    onSubmit(el, deploy, async () => {
      const res = await api('POST', `/sources${asOwner('?')}`, { component_id: comp.id, name: name.value.trim() || undefined, configured_props: form.read() });
      flash(`Deployed ${res.data.name}.`, 'info');
      location.hash = `#/sources/${enc(res.data.id)}/events`;
    });
    return el;
  }

  // ---- workflows ----

  async function workflowsPage(view) {
    const res = await api('GET', `${listOf('workflows')}?limit=100`);
    const spark = sparkCells(res.data, 'runs');
    const rows = res.data.map((w) => {
      const [last, errors] = statsCells(`/workflows/${enc(w.id)}/executions?limit=1`, (x) => x.started_at_ms,
        `/workflows/${enc(w.id)}/$errors/event_summaries?limit=100`);
      return h('tr', {},
        h('td', {}, h('a', { href: `#/workflows/${enc(w.id)}`, text: w.name }), h('div', { class: 'hint mono', text: w.id })),
        h('td', {}, statusBadge(w.active)), h('td', { text: w.trigger.type }), spark(w.id), last, errors,
        h('td', { class: 'hide-narrow', text: String(w.steps.length) }));
    });
    view('Workflows',
      h('div', { class: 'row spread' }, h('h1', { text: 'Workflows' }), h('a', { class: 'button primary', href: '#/workflows/new' }, 'New workflow')),
      table(['Name', 'Status', 'Trigger', 'Executions, last day', 'Last execution', 'Errors', '~Steps'], rows, 'No workflows yet.'));
  }

  async function workflowPage(view, id, sub) {
    const wf = (await api('GET', `/workflows/${enc(id)}`)).data;
    const base = `#/workflows/${enc(id)}`;
    const run = h('button', { type: 'button', text: 'Run now' });
    run.addEventListener('click', () => busy(run, async () => {
      const res = await api('POST', `/workflows/${enc(id)}/run`, {});
      flash(`Execution ${res.data.execution_id} queued.`, 'info');
    }));
    const toggle = h('button', { type: 'button', id: 'toggle-active', text: wf.active ? 'Pause' : 'Activate' });
    toggle.addEventListener('click', () => busy(toggle, async () => {
      await api('PUT', `/workflows/${enc(id)}/active`, { active: !wf.active });
      flash(wf.active ? 'Workflow paused: its trigger is off, manual runs still work.' : 'Workflow activated.', 'info');
      route();
    }));
    const del = h('button', { type: 'button', class: 'danger', text: 'Delete' });
    del.addEventListener('click', async () => {
      if (!(await confirmDialog(`Delete ${wf.name}, its events and executions?`, 'Delete workflow'))) return;
      await busy(del, async () => { await api('DELETE', `/workflows/${enc(id)}`); location.hash = '#/workflows'; });
    });
    const t = wf.trigger;
    view(wf.name,
      h('div', { class: 'row spread' },
        h('div', {}, h('h1', { text: wf.name }), h('div', { class: 'row' }, h('code', { text: wf.id }), statusBadge(wf.active))),
        h('div', { class: 'row' }, run, toggle, del)),
      h('div', { class: 'panel' }, kv([
        ['Trigger', t.type],
        t.endpoint_url && ['Endpoint', h('code', { class: 'endpoint-url', text: t.endpoint_url })],
        t.emitter_id && ['Emitter', h('code', { text: `${t.emitter_id}${t.event_name ? ` / ${t.event_name}` : ''}` })],
        t.timer && ['Timer', h('code', { text: JSON.stringify(t.timer) })],
        ['Steps', wf.steps.map((s) => `${s.name} (${s.kind}${s.key ? ` ${s.key}` : ''})`).join(' → ')],
        ['Version', String(wf.version)],
      ])),
      h('div', { class: 'panel' }, h('h2', { text: 'Steps' }), wf.steps.map((st) => h('div', {},
        h('div', { class: 'row spread' }, h('h3', { text: `${st.name} · ${st.component_name} ${st.component_version}` }),
          h('a', { class: 'button edit-step', href: `#/steps/${enc(wf.id)}/${enc(st.name)}`, text: 'Edit props' })),
        Object.keys(st.props).length ? kv(Object.entries(st.props).map(([k, v]) => [k, showProp(v)])) : h('p', { class: 'muted', text: 'No props.' })))),
      activityPanel('workflow', `/workflows/${enc(id)}`),
      controlsForm(wf),
      ...tabs(base, [
        { id: 'executions', label: 'Executions', render: () => executionsList(id) },
        { id: 'events', label: 'Events', render: (stop) => eventLog(`/workflows/${enc(id)}/event_summaries`, `/workflows/${enc(id)}/sse`, stop, 'No events: steps emit with $.send.emit.') },
        { id: 'errors', label: 'Errors', render: (stop) => eventLog(`/workflows/${enc(id)}/$errors/event_summaries`, null, stop, 'No errors.') },
      ], sub));
  }

  // stepPage edits one deployed step's props with the form a source has:
  // the props additionalProps adds and options methods included. Saving
  // keeps the step's code and makes a new version of the workflow.
  async function stepPage(view, workflowID, name) {
    const [wf, accounts] = await Promise.all([api('GET', `/workflows/${enc(workflowID)}`).then((r) => r.data), myAccounts()]);
    const step = wf.steps.find((st) => st.name === name);
    if (!step) throw new Error(`The workflow ${wf.name} has no step ${name}.`);
    const base = `/workflows/${enc(workflowID)}/steps/${enc(name)}`;
    const form = propsForm({ configurable_props: [] }, step.props, accounts, { props: `${base}/props`, configure: `${base}/configure` });
    await form.ready;
    const save = h('button', { type: 'submit', class: 'primary', id: 'save-step', text: 'Save props' });
    const el = h('form', { class: 'panel', 'aria-label': `Props of step ${name}` }, form.el,
      h('p', { class: 'hint', text: 'Strings may hold {{steps.<name>.$return_value}} or {{steps.trigger.event}} expressions, evaluated at each execution.' }),
      h('p', {}, save));
    onSubmit(el, save, async () => {
      const res = await api('PUT', base + '/props', { props: form.read() });
      flash(`Saved the props of ${name}: version ${res.data.version}.`, 'info');
      location.hash = `#/workflows/${enc(workflowID)}`;
    });
    view(`${name} · ${wf.name}`,
      h('p', {}, h('a', { href: `#/workflows/${enc(workflowID)}`, text: `← ${wf.name}` })),
      h('h1', { text: `Step ${name}` }),
      h('p', { class: 'muted', text: `${step.component_name} ${step.component_version}, step of ${wf.name} (version ${wf.version}).` }),
      el);
  }

  async function executionsList(id) {
    const res = await api('GET', `/workflows/${enc(id)}/executions?limit=100`);
    const rows = res.data.map((x) => {
      const failed = x.steps.find((s) => s.error);
      const notes = x.pause ? pauseText(x.pause) : failed ? `${failed.name}: ${failed.error}` : x.steps.map((s) => s.$summary).filter(Boolean).join('; ');
      return h('tr', {}, h('td', {}, h('a', { href: `#/executions/${enc(x.id)}`, class: 'execution-link', text: fmtTime(x.started_at_ms) })),
        h('td', {}, executionBadge(x.status)), h('td', { text: `${x.duration_ms} ms` }),
        h('td', { class: 'hide-narrow', text: notes }));
    });
    return table(['Started', 'Status', 'Duration', '~Notes'], rows, 'No executions yet.');
  }

  function executionBadge(status) {
    const kind = { success: 'ok', exited: 'ok', error: 'bad', cancelled: 'bad', paused: 'off' }[status] || 'off';
    return h('span', { class: `badge ${kind}`, text: status });
  }

  // pauseText says what a paused execution waits for.
  function pauseText(p) {
    const until = fmtTime(p.until_ms);
    switch (p.kind) {
      case 'delay': return `delayed after ${p.step} until ${until}`;
      case 'suspend': return `suspended after ${p.step}: waits for its resume URL until ${until}`;
      case 'rerun': return `reruns ${p.step} at ${until}`;
      case 'retry': return `retries ${p.step} at ${until}`;
    }
    return `paused at ${p.step} until ${until}`;
  }

  // executionPage shows one execution step by step, and replays it.
  async function executionPage(view, id) {
    const x = (await api('GET', `/executions/${enc(id)}`)).data;
    const replay = h('button', { type: 'button', id: 'replay', text: 'Replay' });
    replay.addEventListener('click', () => busy(replay, async () => {
      const res = await api('POST', `/executions/${enc(id)}/replay`, {});
      flash(`Replayed as ${res.data.execution_id}.`, 'info');
      location.hash = `#/executions/${enc(res.data.execution_id)}`;
    }));
    const refresh = h('button', { type: 'button', text: 'Refresh' });
    refresh.addEventListener('click', () => route());
    const block = (label, value) => (value === undefined || value === null ? null
      : h('div', {}, h('h4', { text: label }), h('pre', { class: 'value', text: pretty(value) })));
    const stepPanels = x.steps.map((st, i) => h('section', { class: 'panel step', 'aria-label': `Step ${st.name}` },
      h('div', { class: 'row spread' },
        h('h3', { text: `${i + 1}. ${st.name}` }),
        h('div', { class: 'row' }, executionBadge(st.status), h('span', { class: 'muted', text: `${st.duration_ms} ms` }))),
      st.$summary ? h('p', { text: st.$summary }) : null,
      st.error ? h('div', { class: 'step-error', role: 'note' },
        h('p', { class: 'error-text', text: `${st.error.name}: ${st.error.message}` }),
        st.error.stack ? h('pre', { class: 'value', text: st.error.stack }) : null) : null,
      block('Return value', st.$return_value),
      st.exports && Object.keys(st.exports).length ? block('Exports', st.exports) : null,
      st.logs && st.logs.length ? h('div', {}, h('h4', { text: 'Logs' }),
        h('pre', { class: 'value logs', text: st.logs.map((l) => `${new Date(l.at_ms).toISOString().slice(11, 23)} ${l.level.padEnd(5)} ${l.text}`).join('\n') })) : null,
      st.truncated ? h('p', { class: 'hint', text: 'Values and logs of this step were dropped to keep the record small.' }) : null));
    view(`Execution ${x.id}`,
      h('div', { class: 'row spread' },
        h('div', {}, h('h1', { text: 'Execution' }), h('div', { class: 'row' }, h('code', { text: x.id }), executionBadge(x.status))),
        h('div', { class: 'row' }, refresh, replay)),
      h('div', { class: 'panel' }, kv([
        ['Workflow', h('a', { href: `#/workflows/${enc(x.workflow_id)}`, text: x.workflow_id })],
        ['Started', fmtTime(x.started_at_ms)],
        ['Duration', `${x.duration_ms} ms${x.status === 'paused' ? ' so far (time paused is not counted)' : ''}`],
        x.deployment_id && ['Deployment', h('code', { text: x.deployment_id })],
        x.pause && ['Waiting', h('span', { id: 'pause-state', text: pauseText(x.pause) })],
        x.exit_reason && ['Ended', x.exit_reason],
      ])),
      h('section', { class: 'panel', 'aria-label': 'Trigger event' }, h('h3', { text: 'Trigger event' }), h('pre', { class: 'value', text: pretty(x.event) })),
      ...stepPanels,
      x.truncated ? h('p', { class: 'hint', text: 'Values and logs were dropped to keep this record small.' }) : null);
  }

  // controlsForm edits a workflow's execution controls.
  function controlsForm(wf) {
    const num = (id, label, value, min, max, hint) => {
      const input = h('input', { type: 'number', id, min, max, value: value ? String(value) : '' });
      return [h('label', { for: id, text: label }), input, h('p', { class: 'hint', text: hint })];
    };
    const [cl, concurrency, ch] = num('ctl-concurrency', 'Concurrency', wf.concurrency, 1, 50, 'Executions that run at once; empty: one at a time, in arrival order.');
    const [ql, queue, qh] = num('ctl-queue', 'Queue size', wf.queue_size, 1, 10000, 'Most executions waiting to start; past it, requests get 429. Empty: no bound.');
    const [rl, retry, rh] = num('ctl-retry', 'Retry attempts', wf.retry && wf.retry.attempts, 1, 8, 'Reruns of a failed step, with backoff. Empty: none.');
    const [tl, limit, th] = num('ctl-throttle-limit', 'Throttle: executions', wf.throttle && wf.throttle.limit, 1, 10000, 'At most this many start per interval. Empty: no throttle.');
    const [il, interval, ih] = num('ctl-throttle-interval', 'Throttle: interval (seconds)', wf.throttle && wf.throttle.interval_seconds, 1, 86400, '');
    const save = h('button', { type: 'submit', id: 'save-controls', text: 'Save controls' });
    const form = h('form', { class: 'panel', 'aria-labelledby': 'controls-title' },
      h('h2', { id: 'controls-title', text: 'Execution controls' }), cl, concurrency, ch, ql, queue, qh, rl, retry, rh, tl, limit, th, il, interval, ih, h('p', {}, save));
    const n = (input) => (input.value === '' ? 0 : Number(input.value));
    onSubmit(form, save, async () => {
      const body = { concurrency: n(concurrency), queue_size: n(queue) };
      if (n(retry)) body.retry = { attempts: n(retry) };
      if (n(limit) || n(interval)) body.throttle = { limit: n(limit), interval_seconds: n(interval) };
      await api('PUT', `/workflows/${enc(wf.id)}/controls`, body);
      flash('Execution controls saved.', 'info');
      route();
    });
    return form;
  }

  // newWorkflowPage builds a workflow's definition from a form (its name,
  // trigger and steps, in order), or takes it as JSON, as POST
  // /v1/workflows and fount deploy take it, when that box is filled. A
  // step's props have a form of their own once deployed (stepPage).
  async function newWorkflowPage(view) {
    const [sources, workflows] = await Promise.all([api('GET', `${listOf('sources')}?limit=100`), api('GET', `${listOf('workflows')}?limit=100`)]);
    const name = h('input', { type: 'text', id: 'wf-name', placeholder: 'my-workflow', 'aria-describedby': 'wf-name-hint' });
    const trigger = triggerFields([...sources.data, ...workflows.data]);
    const list = h('ol', { class: 'step-list' });
    const addStep = (init) => { list.append(stepFields(list, init)); };
    addStep({ name: 'hello', code: 'export default defineComponent({\n  async run({ steps, $ }) {\n    return { got: steps.trigger.event }\n  },\n})' });
    const def = h('textarea', { id: 'workflow-definition', class: 'code', spellcheck: 'false', 'aria-describedby': 'wf-hint' });
    const create = h('button', { type: 'submit', class: 'primary', id: 'deploy-workflow', text: 'Deploy' });
    const form = h('form', { 'aria-label': 'New workflow' },
      h('section', { class: 'panel' },
        h('label', { for: 'wf-name', text: 'Name' }), name,
        h('p', { class: 'hint', id: 'wf-name-hint', text: 'Unique among your workflows; deploying one by the same name again updates it.' })),
      trigger.el,
      h('section', { class: 'panel', 'aria-labelledby': 'wf-steps-title' },
        h('h2', { id: 'wf-steps-title', text: 'Steps' }),
        h('p', { class: 'hint', text: 'Run in order; a later step reads an earlier one\'s return value as steps.<name>.$return_value, and the trigger\'s event as steps.trigger.event.' }),
        list, h('p', {}, h('button', { type: 'button', id: 'add-step', text: 'Add a step', onclick: () => addStep({}) }))),
      h('details', { class: 'panel' }, h('summary', { text: 'Or paste a definition (JSON)' }),
        h('label', { for: 'workflow-definition', text: 'Workflow definition (JSON)' }), def,
        h('p', { class: 'hint', id: 'wf-hint', text: 'As POST /v1/workflows takes it, or a workflow file fount deploy reads. Used instead of the form when filled.' })),
      h('p', {}, create));
    onSubmit(form, create, async () => {
      let body;
      if (def.value.trim()) {
        try { body = JSON.parse(def.value); } catch (err) { throw new Error(`The definition is not valid JSON: ${err.message}`); }
      } else {
        if (!list.children.length) throw new Error('Add a step: a workflow runs at least one.');
        body = { name: name.value.trim(), trigger: trigger.read(), steps: [...list.children].map((li) => li.read()) };
      }
      const res = await api('POST', `/workflows${asOwner('?')}`, body);
      flash(`Deployed ${res.data.name}.`, 'info');
      location.hash = `#/workflows/${enc(res.data.id)}`;
    });
    view('New workflow', h('h1', { text: 'New workflow' }), form);
    name.focus();
  }

  // triggerFields is the trigger part of the new workflow form: the
  // fields of the chosen type only, and read() its TriggerSpec.
  // emitters are the sources and workflows whose events may start it.
  function triggerFields(emitters) {
    const type = h('select', { id: 'wf-trigger' },
      h('option', { value: 'http', text: 'HTTP request: an endpoint of its own' }),
      h('option', { value: 'timer', text: 'Timer: an interval or a cron schedule' }),
      h('option', { value: 'source', text: 'Events of a source or a workflow' }),
      h('option', { value: 'manual', text: 'Manual: Run now, the CLI or the API only' }));
    const respond = h('input', { type: 'checkbox', id: 'wf-respond' });
    const token = h('input', { type: 'text', id: 'wf-token', autocomplete: 'off', 'aria-describedby': 'wf-token-hint' });
    const interval = h('input', { type: 'number', id: 'wf-interval', min: '1', value: '900' });
    const cron = h('input', { type: 'text', id: 'wf-cron', placeholder: 'e.g. 0 9 * * 1-5', 'aria-describedby': 'wf-cron-hint' });
    const zone = h('input', { type: 'text', id: 'wf-timezone', placeholder: 'the server\'s zone', 'aria-describedby': 'wf-timezone-hint' });
    const emitter = emitterSelect('wf-emitter', emitters);
    const channel = h('input', { type: 'text', id: 'wf-event-name', placeholder: 'default channel' });
    const parts = {
      http: h('div', {},
        h('label', { class: 'check' }, respond, 'The workflow answers the request with $.respond()'),
        h('label', { for: 'wf-token', text: 'Bearer token (optional)' }), token,
        h('p', { class: 'hint', id: 'wf-token-hint', text: 'Requests without Authorization: Bearer <token> get 401. 16 to 256 characters.' })),
      timer: h('div', {},
        h('label', { for: 'wf-interval', text: 'Every (seconds)' }), interval,
        h('label', { for: 'wf-cron', text: 'or a cron schedule' }), cron,
        h('p', { class: 'hint', id: 'wf-cron-hint', text: 'Used instead of the interval when filled.' }),
        h('label', { for: 'wf-timezone', text: 'Time zone of the schedule (optional)' }), zone,
        h('p', { class: 'hint', id: 'wf-timezone-hint', text: 'An IANA name, such as Europe/Paris.' })),
      source: h('div', {},
        h('label', { for: 'wf-emitter', text: 'Emitter' }), emitter,
        h('label', { for: 'wf-event-name', text: 'Channel (optional)' }), channel),
      manual: h('p', { class: 'hint', text: 'Runs only when asked: Run now on its page, fount run, or POST /v1/workflows/{id}/run.' }),
    };
    const show = () => { for (const [k, el] of Object.entries(parts)) el.hidden = k !== type.value; };
    type.addEventListener('change', show);
    show();
    const el = h('section', { class: 'panel', 'aria-labelledby': 'wf-trigger-title' },
      h('h2', { id: 'wf-trigger-title', text: 'Trigger' }),
      h('label', { for: 'wf-trigger', text: 'What starts an execution' }), type, Object.values(parts));
    const read = () => {
      const spec = { type: type.value };
      if (type.value === 'http') {
        if (respond.checked) spec.respond = true;
        if (token.value.trim()) spec.token = token.value.trim();
      } else if (type.value === 'timer') {
        if (cron.value.trim()) spec.timer = { cron: cron.value.trim(), ...(zone.value.trim() ? { timezone: zone.value.trim() } : {}) };
        else if (Number(interval.value) >= 1) spec.timer = { intervalSeconds: Number(interval.value) };
        else throw new Error('Give the timer an interval of at least a second, or a cron schedule.');
      } else if (type.value === 'source') {
        if (!emitter.value) throw new Error('Choose the source or workflow whose events start this one.');
        spec.emitter_id = emitter.value;
        if (channel.value.trim()) spec.event_name = channel.value.trim();
      }
      return spec;
    };
    return { el, read };
  }

  // stepFields is one step of the new workflow form, in list: its name,
  // its code (an action's, or a published action's key instead), its
  // props as JSON, and buttons that move or remove it. The list item's
  // read() is its StepSpec.
  let stepSeq = 0;
  function stepFields(list, init) {
    const n = ++stepSeq;
    const name = h('input', { type: 'text', id: `step-name-${n}`, value: init.name || `step_${list.children.length + 1}`, 'aria-describedby': `step-name-hint-${n}` });
    const kind = h('select', { id: `step-kind-${n}` },
      h('option', { value: 'code', text: 'Code step' }), h('option', { value: 'action', text: 'Action: a component with props' }));
    const code = h('textarea', { id: `step-code-${n}`, class: 'code', spellcheck: 'false' });
    code.value = init.code || 'export default defineComponent({\n  async run({ steps, $ }) {\n  },\n})';
    const key = h('input', { type: 'text', id: `step-key-${n}`, placeholder: 'e.g. http-request', 'aria-describedby': `step-key-hint-${n}` });
    const props = h('textarea', { id: `step-props-${n}`, class: 'mono', spellcheck: 'false', placeholder: '{ "url": "{{steps.trigger.event.body.url}}" }', 'aria-describedby': `step-props-hint-${n}` });
    const codePart = h('div', {}, h('label', { for: `step-code-${n}`, text: 'Code' }), code);
    const keyPart = h('div', { hidden: true }, h('label', { for: `step-key-${n}`, text: 'or a published action, by registry key' }), key,
      h('p', { class: 'hint', id: `step-key-hint-${n}`, text: 'Used instead of the code when filled.' }));
    kind.addEventListener('change', () => { keyPart.hidden = kind.value !== 'action'; });
    const label = () => name.value.trim() || `step ${[...list.children].indexOf(li) + 1}`;
    const move = (by) => {
      const at = [...list.children].indexOf(li) + by;
      if (at < 0 || at >= list.children.length) return;
      if (by < 0) list.insertBefore(li, list.children[at]); else list.insertBefore(li, list.children[at].nextSibling);
    };
    const button = (text, what, cls, action) => h('button', { type: 'button', class: cls, text, 'aria-label': what, onclick: action });
    const li = h('li', { class: 'step-item' },
      h('div', { class: 'row spread' },
        h('div', { class: 'row' }, h('label', { for: `step-name-${n}`, class: 'inline', text: 'Step name' }), name),
        h('div', { class: 'row' }, button('Up', 'Move this step up', 'step-up', () => move(-1)),
          button('Down', 'Move this step down', 'step-down', () => move(1)),
          button('Remove', 'Remove this step', 'step-remove danger', () => li.remove()))),
      h('p', { class: 'hint', id: `step-name-hint-${n}`, text: 'Letters, digits and _.' }),
      h('label', { for: `step-kind-${n}`, text: 'Kind' }), kind, codePart, keyPart,
      h('label', { for: `step-props-${n}`, text: 'Props (JSON, optional)' }), props,
      h('p', { class: 'hint', id: `step-props-hint-${n}`, text: 'A string may hold {{steps.<name>...}} expressions. Once deployed, the step has a form for its props.' }));
    li.read = () => {
      const spec = { name: name.value.trim() };
      if (kind.value === 'action') spec.kind = 'action';
      if (kind.value === 'action' && key.value.trim()) spec.key = key.value.trim();
      else spec.code = code.value;
      if (props.value.trim()) {
        try { spec.props = JSON.parse(props.value); } catch (err) { throw new Error(`Step ${label()}: the props are not valid JSON: ${err.message}`); }
      }
      return spec;
    };
    return li;
  }

  // ---- webhooks ----

  async function webhooksPage(view) {
    const res = await api('GET', `${listOf('webhooks')}?limit=100`);
    const spark = sparkCells(res.data, 'delivered');
    const rows = res.data.map((w) => h('tr', {},
      h('td', {}, h('a', { href: `#/webhooks/${enc(w.id)}`, text: w.name || w.id }), h('div', { class: 'hint mono', text: w.id })),
      h('td', { class: 'mono', text: w.url }),
      h('td', {}, statusBadge(w.active), w.disabled_reason ? h('div', { class: 'hint', text: w.disabled_reason }) : null),
      spark(w.id)));
    const url = h('input', { type: 'url', id: 'webhook-url', required: true, placeholder: 'https://example.com/hooks/fount' });
    const name = h('input', { type: 'text', id: 'webhook-name' });
    const create = h('button', { type: 'submit', class: 'primary', text: 'Create webhook' });
    const form = h('form', { class: 'panel', 'aria-labelledby': 'new-webhook' },
      h('h2', { id: 'new-webhook', text: 'New webhook' }),
      h('label', { for: 'webhook-url', text: 'URL' }), url,
      h('label', { for: 'webhook-name', text: 'Name (optional)' }), name, h('p', {}, create));
    onSubmit(form, create, async () => {
      const q = `url=${enc(url.value)}${name.value ? `&name=${enc(name.value)}` : ''}`;
      const res = await api('POST', `/webhooks?${q}${asOwner('&')}`, {});
      secretNotice(res.data.signing_secret);
      location.hash = `#/webhooks/${enc(res.data.id)}`;
    });
    view('Webhooks', h('h1', { text: 'Webhooks' }),
      table(['Name', 'URL', 'Status', 'Delivered, last day'], rows, 'No webhooks yet.'), form);
  }

  // secretNotice shows a signing secret the one time the API gives it.
  function secretNotice(secret) {
    if (!secret) return;
    flash(`Signing secret, shown once; keep it where your receiver verifies signatures: ${secret}`, 'info-sticky');
  }

  async function webhookPage(view, id) {
    const list = await api('GET', `${listOf('webhooks')}?limit=100`);
    const wh = list.data.find((w) => w.id === id);
    if (!wh) throw new Error(`No webhook ${id} exists, or you do not have access to it.`);
    const toggle = h('button', { type: 'button', text: wh.active ? 'Deactivate' : 'Activate' });
    toggle.addEventListener('click', () => busy(toggle, async () => { await api('PUT', `/webhooks/${enc(id)}`, { active: !wh.active }); route(); }));
    const del = h('button', { type: 'button', class: 'danger', text: 'Delete' });
    del.addEventListener('click', async () => {
      if (!(await confirmDialog(`Delete webhook ${wh.name || wh.id}?`, 'Delete webhook'))) return;
      await busy(del, async () => { await api('DELETE', `/webhooks/${enc(id)}`); location.hash = '#/webhooks'; });
    });
    const deliveries = await api('GET', `/webhooks/${enc(id)}/deliveries?limit=100`);
    const rows = deliveries.data.map((d) => {
      const last = d.attempts[d.attempts.length - 1];
      const resend = h('button', { type: 'button', text: 'Resend' });
      resend.addEventListener('click', () => busy(resend, async () => {
        await api('POST', `/webhooks/${enc(id)}/deliveries/${enc(d.id)}/resend`, {});
        flash('Queued one more attempt.', 'info');
      }));
      return h('tr', {},
        h('td', { text: fmtTime(d.created_at_ms) }),
        h('td', {}, h('span', { class: d.status === 'failed' ? 'badge bad' : d.status === 'pending' ? 'badge off' : 'badge ok', text: d.status })),
        h('td', { text: String(d.attempts.length) }),
        h('td', { class: 'hide-narrow mono', text: last ? (last.status ? `HTTP ${last.status}` : last.error || '') : '' }),
        h('td', { class: 'hide-narrow mono', text: `${d.emitter_id} ${d.event_id}` }),
        h('td', {}, resend));
    });
    view(wh.name || wh.id,
      h('div', { class: 'row spread' },
        h('div', {}, h('h1', { text: wh.name || wh.id }), h('div', { class: 'row' }, h('code', { text: wh.url }), statusBadge(wh.active))),
        h('div', { class: 'row' }, toggle, del)),
      wh.disabled_reason ? h('p', { class: 'panel error-text', text: wh.disabled_reason }) : null,
      activityPanel('webhook', `/webhooks/${enc(id)}`),
      await subscribeForm(wh),
      h('h2', { text: 'Deliveries' }),
      table(['Created', 'Status', 'Attempts', '~Last answer', '~Event', ''], rows, 'No deliveries yet.'));
  }

  // subscribeForm subscribes a listener (a webhook, or a source, which
  // then runs on each event) to a source's or workflow's channel, and
  // lists what it is subscribed to.
  // emitterSelect chooses what emits the events something listens to:
  // one of emitters (sources and workflows), or every source or workflow.
  function emitterSelect(id, emitters) {
    return h('select', { id },
      h('option', { value: '', text: '— choose a source or a workflow —' }),
      emitters.map((x) => h('option', { value: x.id, text: `${x.name} (${x.id})` })),
      h('option', { value: 'dc_*', text: 'every source (dc_*)' }), h('option', { value: 'p_*', text: 'every workflow (p_*)' }));
  }

  async function subscribeForm(listener) {
    const [sources, workflows, subs] = await Promise.all([
      api('GET', `${listOf('sources')}?limit=100`), api('GET', `${listOf('workflows')}?limit=100`), api('GET', listOf('subscriptions')),
    ]);
    const emitter = emitterSelect('subscribe-emitter', [...sources.data.filter((x) => x.id !== listener.id), ...workflows.data]);
    const channel = h('input', { type: 'text', id: 'subscribe-channel', placeholder: 'default channel' });
    const add = h('button', { type: 'submit', text: 'Subscribe' });
    const mine = subs.data.filter((x) => x.listener_id === listener.id);
    const form = h('form', { class: 'panel', 'aria-labelledby': 'subs-title' },
      h('h2', { id: 'subs-title', text: 'Subscriptions' }),
      mine.length ? h('ul', {}, mine.map((x) => h('li', { class: 'mono', text: `${x.emitter_id || 'auto'} ${x.event_name || '(default channel)'}` })))
        : h('p', { class: 'muted', text: 'Not subscribed to anything yet.' }),
      h('label', { for: 'subscribe-emitter', text: 'Deliver the events of' }), emitter,
      h('label', { for: 'subscribe-channel', text: 'Channel (optional: $errors, $logs or a custom one)' }), channel,
      h('p', {}, add));
    onSubmit(form, add, async () => {
      if (!emitter.value) throw new Error('Choose what to subscribe to.');
      await api('POST', `/subscriptions?emitter_id=${enc(emitter.value)}&listener_id=${enc(listener.id)}${channel.value ? `&event_name=${enc(channel.value)}` : ''}`, {});
      flash('Subscribed.', 'info');
      route();
    });
    return form;
  }

  // ---- accounts and usage ----

  async function accountsPage(view) {
    const res = await api('GET', `${listOf('accounts')}?limit=100`);
    const rows = res.data.map((a) => {
      const del = h('button', { type: 'button', class: 'danger', text: 'Delete' });
      del.addEventListener('click', async () => {
        if (!(await confirmDialog(`Delete the account ${a.name}?`, 'Delete account'))) return;
        await busy(del, async () => { await api('DELETE', `/accounts/${enc(a.id)}`); route(); });
      });
      return h('tr', {}, h('td', {}, a.name, h('div', { class: 'hint mono', text: a.id })), h('td', { text: a.app }),
        h('td', { text: a.fields_set.join(', ') }), h('td', { class: 'hide-narrow', text: fmtTime(a.created_at * 1000) }), h('td', {}, del));
    });
    const app = h('input', { type: 'text', id: 'account-app', required: true, placeholder: 'github' });
    const name = h('input', { type: 'text', id: 'account-name', required: true });
    const token = h('input', { type: 'password', id: 'account-token', autocomplete: 'off' });
    const apiKey = h('input', { type: 'password', id: 'account-api-key', autocomplete: 'off' });
    const fields = h('textarea', { id: 'account-fields', class: 'code', 'aria-describedby': 'fields-hint' });
    fields.style.minHeight = '4em';
    const create = h('button', { type: 'submit', class: 'primary', text: 'Connect account' });
    const form = h('form', { class: 'panel', 'aria-labelledby': 'new-account' },
      h('h2', { id: 'new-account', text: 'Connect an account' }),
      h('label', { for: 'account-app', text: 'App (the slug its app props name)' }), app,
      h('label', { for: 'account-name', text: 'Name' }), name,
      h('label', { for: 'account-token', text: 'OAuth access token (optional)' }), token,
      h('label', { for: 'account-api-key', text: 'API key (optional)' }), apiKey,
      h('label', { for: 'account-fields', text: 'Other fields (optional)' }), fields,
      h('p', { class: 'hint', id: 'fields-hint', text: 'A JSON object of strings, each a $auth field.' }),
      h('p', {}, create));
    onSubmit(form, create, async () => {
      let extra;
      if (fields.value.trim()) {
        try { extra = JSON.parse(fields.value); } catch (err) { throw new Error(`Other fields are not valid JSON: ${err.message}`); }
      }
      await api('POST', `/accounts${asOwner('?')}`, {
        app: app.value.trim(), name: name.value.trim(),
        oauth_access_token: token.value || undefined, api_key: apiKey.value || undefined, fields: extra,
      });
      flash('Account connected. Its credentials are sealed and never shown again.', 'info');
      route();
    });
    view('Accounts', h('h1', { text: 'Connected accounts' }),
      h('p', { class: 'muted', text: 'Credentials behind the $auth of app props. Their values are never shown.' }),
      table(['Name', 'App', 'Fields set', '~Created', ''], rows, 'No connected accounts.'), form);
  }

  async function usagePage(view) {
    const u = (await api('GET', '/users/me')).data;
    const quota = (used, limit, unit) => (limit === undefined ? (used === undefined ? 'no quota' : `${used}${unit}`) : `${used ?? 0}${unit} of ${limit}${unit}`);
    view('Usage', h('h1', { text: 'Usage and quotas' }),
      h('div', { class: 'panel' }, kv([
        ['User', `${u.username} (${u.id})`],
        ['Email', u.email || '—'],
        ['Organizations', u.orgs.length ? u.orgs.map((o) => `${o.name} (${o.id})`).join(', ') : 'none'],
        ['Invocations today', quota(u.daily_invocations_used, u.daily_invocations_quota, '')],
        ['Compute time today', quota(u.daily_compute_time_used, u.daily_compute_time_quota, ' ms')],
        u.billing_period_invocations !== undefined && ['Invocations this billing period', String(u.billing_period_invocations)],
      ])));
  }

  // ---- start ----

  (async () => {
    try {
      const res = await request('GET', '/ui/session');
      signedIn(res.data);
      route();
    } catch (err) {
      signedOut(err.status === 401 ? '' : err.message);
    }
  })();
})();
