import { registerWorldMap } from './world-map.js';

/**
 * The web app's way to the world map (docs/dashboards.md "Maps"): the TopoJSON of the world's
 * countries (`world-atlas`, about 100 kB, 30 kB compressed) in a chunk of its own, loaded when a
 * map is first drawn and registered once per page. The export page does not come here: the
 * server inlines the TopoJSON into a map's page.
 */
let registered: Promise<void> | undefined;

export function worldMapReady(): Promise<void> {
  registered ??= import('world-atlas/countries-110m.json', { with: { type: 'json' } }).then(
    (topology) => registerWorldMap(topology.default),
    (error: unknown) => {
      registered = undefined;
      throw error;
    },
  );
  return registered;
}
