import { Alert, NativeSelect, Stack, Switch } from '@mantine/core';
import { type MultiqcComponent, type MultiqcSummary, multiqcSummarySchema } from '@service/common';
import { useQuery } from '@tanstack/react-query';
import { errorMessage } from '../../api/client.js';
import { useApi } from '../../auth/session.js';
import { Choice } from './Choice.js';

/** What a MultiQC collection's reports hold (`GET /datacollections/{id}/multiqc`): the plot picker's choices. */
export function useMultiqcSummary(collectionId: string) {
  const api = useApi();
  return useQuery({
    queryKey: ['multiqc', collectionId],
    enabled: collectionId !== '',
    retry: false,
    queryFn: ({ signal }) => api.request(`/datacollections/${collectionId}/multiqc`, multiqcSummarySchema, { signal }),
  });
}

/** The report's plots grouped by module (the general statistics first), as MultiQC's report orders them. */
function plotGroups(summary: MultiqcSummary) {
  const names = new Map(summary.modules.map((module) => [module.anchor, module.name]));
  const groups = new Map<string, { value: string; label: string }[]>();
  for (const plot of summary.plots) {
    const group = plot.module === 'general_stats' ? 'General statistics' : (names.get(plot.module) ?? plot.module);
    groups.set(group, [
      ...(groups.get(group) ?? []),
      { value: plot.anchor, label: `${plot.title} (${plot.plot_type})` },
    ]);
  }
  return [...groups].map(([group, items]) => ({ group, items }));
}

/** The builder's form for a MultiQC plot: which plot, which of its datasets, counts or percentages. */
export function MultiqcForm({
  multiqc,
  onChange,
}: {
  multiqc: MultiqcComponent;
  onChange: (component: MultiqcComponent) => void;
}) {
  const summary = useMultiqcSummary(multiqc.data_collection_id);
  if (multiqc.data_collection_id === '') return null;
  if (summary.isError) return <Alert color="red">{errorMessage(summary.error)}</Alert>;
  const plots = summary.data ? plotGroups(summary.data) : [];
  const plot = summary.data?.plots.find((entry) => entry.anchor === multiqc.plot);
  return (
    <Stack gap="sm">
      <NativeSelect
        label="MultiQC plot"
        withAsterisk
        data={[{ value: '', label: summary.isPending ? 'Loading…' : 'Pick a plot', disabled: true }, ...plots]}
        value={plot ? multiqc.plot : ''}
        onChange={(event) => {
          const { dataset: _dataset, percentages: _percentages, ...rest } = multiqc;
          onChange({ ...rest, plot: event.currentTarget.value });
        }}
      />
      {plot !== undefined && plot.datasets.length > 1 && (
        <Choice
          label="Dataset"
          required
          options={plot.datasets.map((label, index) => ({ value: String(index), label }))}
          value={String(multiqc.dataset ?? 0)}
          onChange={(value) => onChange({ ...multiqc, dataset: Number(value ?? 0) })}
        />
      )}
      {plot?.plot_type === 'bar' && (
        <Switch
          label="Percentages of each sample's total"
          checked={multiqc.percentages ?? false}
          onChange={(event) => onChange({ ...multiqc, percentages: event.currentTarget.checked })}
        />
      )}
    </Stack>
  );
}
