// One number formatter for the web app and the export page (docs/architecture.md "Glossary"):
// it lives in common/, so a card rounds the same in an embed as on the dashboard.
export { formatCount, formatMeasure } from '@service/common';
