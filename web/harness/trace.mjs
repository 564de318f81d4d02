// A Chromium trace of what a page does while a step runs, for benchmarks
// (the longest main-thread task, in wall and thread CPU time) and for
// tests that count the work a step makes the browser do (layouts and the
// objects they lay out), never its speed.

/**
 * Runs step under a trace of the page of cdp (a CDP session) and resolves
 * with its result and the trace's events.
 * @template T
 * @param {import('playwright-core').CDPSession} cdp
 * @param {() => Promise<T>} step
 * @returns {Promise<{ result: T, events: any[] }>}
 */
export async function trace(cdp, step, categories = 'toplevel,blink.user_timing,devtools.timeline') {
  const events = [];
  const collect = (e) => events.push(...e.value);
  cdp.on('Tracing.dataCollected', collect);
  try {
    const done = new Promise((ok) => cdp.once('Tracing.tracingComplete', ok));
    await cdp.send('Tracing.start', { categories, transferMode: 'ReportEvents' });
    let result;
    try {
      result = await step();
    } finally {
      await cdp.send('Tracing.end');
      await done;
    }
    return { result, events };
  } finally {
    cdp.off('Tracing.dataCollected', collect);
  }
}

/**
 * The complete events of the thread that made the performance mark
 * `${mark}-start` (the page's main thread), between it and `${mark}-end`;
 * tasks are its top-level tasks, ours those that are not DevTools' own
 * (a test's clicks and waits run in the page as DevTools messages, and
 * lay out and restyle too).
 */
export function mainThread(events, mark) {
  const start = events.find((e) => e.name === `${mark}-start`);
  const end = events.find((e) => e.name === `${mark}-end`);
  if (!start || !end) throw new Error(`the trace lacks the marks ${mark}-start and ${mark}-end`);
  const on = events.filter((e) => e.ph === 'X' && e.pid === start.pid && e.tid === start.tid && e.ts + e.dur > start.ts && e.ts < end.ts);
  const tasks = on.filter((e) => e.name === 'ThreadControllerImpl::RunTask');
  const within = (t) => (e) => e !== t && e.ts >= t.ts && e.ts + e.dur <= t.ts + t.dur;
  const devtools = on.filter((e) => e.name === 'Receive mojo message' && /DevTools/.test(e.args?.chrome_mojo_event_info?.mojo_interface_tag ?? ''));
  const ours = tasks.filter((t) => !devtools.some(within(t)));
  return { events: on, tasks, ours, within };
}

/**
 * The rendering work of the page's own tasks between the marks (see
 * mainThread): layouts and the objects they laid out, style
 * recalculations and the elements they restyled. Counts, not times: the
 * same on a loaded machine.
 */
export function rendering(events, mark) {
  const { events: on, ours, within } = mainThread(events, mark);
  const mine = (name) => on.filter((e) => e.name === name && ours.some((t) => within(t)(e)));
  const layouts = mine('Layout');
  const styles = mine('UpdateLayoutTree');
  return {
    layouts: layouts.length,
    laidOut: layouts.reduce((n, e) => n + (e.args?.beginData?.dirtyObjects ?? 0), 0),
    restyles: styles.length,
    restyled: styles.reduce((n, e) => n + (e.args?.elementCount ?? 0), 0),
  };
}
