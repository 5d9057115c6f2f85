import { readFile } from 'node:fs/promises';

const DASHBOARD = new URL('../../charts/suigw/dashboards/suigw.json', import.meta.url);

interface Panel { title: string; targets?: { refId: string; expr: string }[] }

/** Every target query of every panel of charts/suigw/dashboards/suigw.json. */
export async function dashboardQueries(): Promise<{ panel: string; refId: string; expr: string }[]> {
  const dashboard = JSON.parse(await readFile(DASHBOARD, 'utf8')) as { panels: Panel[] };
  return dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel: panel.title, refId: target.refId, expr: target.expr })));
}
