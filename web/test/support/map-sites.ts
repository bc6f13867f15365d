/**
 * The map tests' sites (e2e-maps, e2e-map-builder): France written three ways (alpha-3, alpha-2,
 * its name), the USA three times in two ways, Brazil, Japan, and a code that names no country.
 */
export const MAP_SITES = [
  'site,country,reads,lat,lon',
  'a,FRA,10,48.8,2.3',
  'b,fr,20,45.7,4.8',
  'c,France,30,43.3,5.4',
  'd,USA,5,40.7,-74.0',
  'e,US,7,34.0,-118.2',
  'f,BR,1,-23.5,-46.6',
  'g,JPN,4,35.7,139.7',
  'h,XX,2,-33.9,151.2',
  'i,USA,3,41.9,-87.6',
  '',
].join('\n');
