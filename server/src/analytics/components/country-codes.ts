import iso from 'iso-3166-1';
import world from 'world-atlas/countries-110m.json' with { type: 'json' };

/**
 * The countries a choropleth can colour (docs/dashboards.md "Maps"): those of the map both the
 * web app and the export page draw (`world-atlas`, Natural Earth 1:110 m, 177 countries), each
 * known by every code a table may hold for it: its ISO 3166-1 numeric, alpha-2 and alpha-3
 * codes, its ISO English name, the map's own (shorter) name and a few common English names.
 * A code is matched after trimming, in any case; numeric codes with or without their leading
 * zeros ("4", "004") or as decimals ("4.0", from a numeric column). Keys are unique: an ISO name two countries share ("Congo") names neither.
 */

export interface MapCountry {
  /** The country's name on the map (the feature ECharts colours). */
  name: string;
  /** ISO 3166-1 alpha-3, or null for the map's few regions without one (N. Cyprus, Somaliland). */
  alpha3: string | null;
}

/** Common English names ISO does not use, by ISO alpha-3 (or the map's name where ISO has none). */
const ALIASES: Record<string, readonly string[]> = {
  USA: ['united states', 'us', 'u.s.', 'u.s.a.', 'america'],
  GBR: ['uk', 'great britain', 'britain', 'england', 'scotland', 'wales', 'northern ireland'],
  RUS: ['russia'],
  KOR: ['south korea', 'korea, south', 'republic of korea'],
  PRK: ['north korea', 'korea, north'],
  IRN: ['iran'],
  SYR: ['syria'],
  VNM: ['vietnam'],
  LAO: ['laos'],
  BOL: ['bolivia (plurinational state of)'],
  VEN: ['venezuela'],
  TZA: ['tanzania'],
  CZE: ['czechia', 'czech republic'],
  CIV: ['ivory coast', "cote d'ivoire"],
  COD: ['dr congo', 'drc', 'democratic republic of the congo', 'congo, democratic republic of the', 'congo-kinshasa'],
  COG: ['republic of the congo', 'congo-brazzaville', 'congo republic'],
  MDA: ['moldova'],
  MKD: ['north macedonia'],
  SWZ: ['eswatini', 'swaziland'],
  MMR: ['burma'],
  TLS: ['east timor'],
  BRN: ['brunei'],
  TWN: ['taiwan'],
  PSE: ['palestine'],
  NLD: ['the netherlands', 'holland'],
  CPV: ['cape verde'],
  TUR: ['turkiye', 'türkiye'],
  Kosovo: ['xk', 'xkx'],
};

/** The map's countries, by the lower-case code or name a table may hold for each. */
function countryKeys(): Map<string, MapCountry> {
  const keys = new Map<string, MapCountry>();
  const add = (key: string, country: MapCountry) => {
    const lower = key.trim().toLowerCase();
    if (lower !== '' && !keys.has(lower)) keys.set(lower, country);
  };
  const isoNames = new Map<string, number>();
  for (const record of iso.all()) {
    const name = record.country.toLowerCase();
    isoNames.set(name, (isoNames.get(name) ?? 0) + 1);
  }
  const geometries = world.objects.countries.geometries as { id?: string; properties: { name: string } }[];
  for (const geometry of geometries) {
    const record = geometry.id === undefined ? undefined : iso.whereNumeric(geometry.id);
    const country: MapCountry = { name: geometry.properties.name, alpha3: record?.alpha3 ?? null };
    add(country.name, country);
    if (record !== undefined) {
      add(record.numeric, country);
      add(record.alpha2, country);
      add(record.alpha3, country);
      if (isoNames.get(record.country.toLowerCase()) === 1) add(record.country, country);
    }
    for (const alias of ALIASES[record?.alpha3 ?? country.name] ?? []) add(alias, country);
  }
  return keys;
}

let known: Map<string, MapCountry> | undefined;

/** Every key of every country on the map (built once). */
export function mapCountries(): ReadonlyMap<string, MapCountry> {
  known ??= countryKeys();
  return known;
}

/** A numeric code as a lookup key: 1–3 digits, also as a decimal a numeric column holds them in ("4.0"). */
const NUMERIC_CODE = /^([0-9]{1,3})(\.0*)?$/;

/** The country a code names, as the SQL of a choropleth matches it (`countryKeySql`), or undefined. */
export function countryOf(code: string | number): MapCountry | undefined {
  const key = String(code).trim().toLowerCase();
  const numeric = NUMERIC_CODE.exec(key);
  return mapCountries().get(numeric ? (numeric[1] ?? '').padStart(3, '0') : key);
}

/**
 * Every lookup key of the countries the codes name (codes of no country add none): a click on a
 * country filters by them, so that it selects all its rows whichever of its codes the answer listed.
 */
export function countryKeysOf(codes: readonly (string | number | boolean | null)[]): string[] {
  const countries = new Set(
    codes.flatMap((code) => {
      const country = typeof code === 'string' || typeof code === 'number' ? countryOf(code) : undefined;
      return country === undefined ? [] : [country];
    }),
  );
  return [...mapCountries()].filter(([, country]) => countries.has(country)).map(([key]) => key);
}

/**
 * The SQL of a code column's lookup key: its text, trimmed and lower-case; 1–3 digits padded to 3,
 * their decimals dropped when they are zeros (a numeric column of codes may be DOUBLE: 4.0 is 4).
 */
export function countryKeySql(column: string): string {
  const text = `lower(trim(CAST(${column} AS VARCHAR)))`;
  return (
    `CASE WHEN regexp_full_match(${text}, '[0-9]{1,3}(\\.0*)?') ` +
    `THEN lpad(split_part(${text}, '.', 1), 3, '0') ELSE ${text} END`
  );
}

/** The lookup as SQL rows `(key, name, alpha3)`, for a join (the strings are this module's own, quoted). */
export function countryValuesSql(): string {
  const quote = (text: string | null) => (text === null ? 'NULL' : `'${text.replaceAll("'", "''")}'`);
  const rows = [...mapCountries()].map(
    ([key, country]) => `(${quote(key)}, ${quote(country.name)}, ${quote(country.alpha3)})`,
  );
  return `(VALUES ${rows.join(', ')})`;
}
