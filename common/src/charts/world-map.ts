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
  for (const country of countries.features) {
    const geometry = country.geometry;
    if (geometry?.type === 'Polygon') geometry.coordinates = geometry.coordinates.map(acrossAntimeridian);
    if (geometry?.type === 'MultiPolygon') {
      geometry.coordinates = geometry.coordinates.map((polygon) => polygon.map(acrossAntimeridian));
    }
  }
  // ECharts reads GeoJSON; its own types name a narrower shape than the standard's.
  registerMap(WORLD_MAP, countries as unknown as Parameters<typeof registerMap>[1]);
}

type Ring = number[][];

/**
 * A ring that crosses the 180th meridian (Fiji, Chukotka) jumps from +180 to −180 and back: drawn
 * on a flat map, that is a line across the whole world. Its western part moves east by 360°, so
 * the country is drawn whole, just past the map's right edge. Antarctica's ring runs along the
 * South Pole from +180 to −180 by design and is kept.
 */
function acrossAntimeridian(ring: Ring): Ring {
  const jumps = ring.some((point, index) => index > 0 && Math.abs((point[0] ?? 0) - (ring[index - 1]?.[0] ?? 0)) > 180);
  if (!jumps || ring.some((point) => (point[1] ?? 0) < -85)) return ring;
  return ring.map(([longitude = 0, latitude = 0]) => [longitude < 0 ? longitude + 360 : longitude, latitude]);
}
