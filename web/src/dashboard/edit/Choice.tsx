import { NativeSelect } from '@mantine/core';

/**
 * A labelled choice among `options` (the browser's own select: keyboard and screen readers know
 * it). `value` null shows the empty first entry, `emptyLabel`; it can be chosen back unless `required`.
 */
export function Choice({
  label,
  options,
  value,
  onChange,
  emptyLabel = 'none',
  required = false,
  description,
  error,
}: {
  label: string;
  options: readonly { value: string; label: string }[];
  value: string | null;
  onChange: (value: string | null) => void;
  emptyLabel?: string;
  required?: boolean;
  description?: string;
  error?: string;
}) {
  const empty = value === null || !options.some((option) => option.value === value);
  const data = [...(empty || !required ? [{ value: '', label: emptyLabel, disabled: required }] : []), ...options];
  return (
    <NativeSelect
      label={label}
      description={description}
      error={error}
      withAsterisk={required}
      data={data}
      value={empty ? '' : value}
      onChange={(event) => onChange(event.currentTarget.value === '' ? null : event.currentTarget.value)}
    />
  );
}
