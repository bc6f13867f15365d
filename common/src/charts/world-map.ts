import { registerMap } from 'echarts/core';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import { WORLD_MAP } from './map-name.js';

/**
 * Registers the world's countries with ECharts as `WORLD_MAP` (maps.ts), from the TopoJSON of the
 * `world-atlas` package (Natural Earth, 1:110 m; its `countries` object, a feature per country
 * named by `properties.name`). The web app loads the TopoJSON in a chunk of its own when a map is
 * first drawn; the export page finds it inlined beside the option. Both register it here, so a
 * map is drawn the same in both (docs/dashboards.md "Maps").
 */
export function registerWorldMap(topology: unknown): void {
  const world = topology as Topology<{ countries: GeometryCollection<{ name: string }> }>;
  const countries = feature(world, world.objects.countries);
  // ECharts reads GeoJSON; its own types name a narrower shape than the standard's.
  registerMap(WORLD_MAP, countries as unknown as Parameters<typeof registerMap>[1]);
}
