import { Alert, List, Stack, Text } from '@mantine/core';
import { ApiError, errorMessage } from '../api/client.js';
import { formatFieldError } from '../jobs/format.js';

/** An API failure with each field error on its own line (`line:column path — message`). */
export function ErrorList({ error, title }: { error: unknown; title: string }) {
  const fields = error instanceof ApiError ? error.fieldErrors : [];
  return (
    <Alert color="red" role="alert" title={title}>
      <Stack gap={4}>
        <Text size="sm">{error instanceof ApiError ? error.message : errorMessage(error)}</Text>
        {fields.length > 0 && (
          <List size="sm" aria-label="Errors">
            {fields.map((field, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the same message may repeat at different places.
              <List.Item key={index} ff="monospace">
                {formatFieldError(field)}
              </List.Item>
            ))}
          </List>
        )}
      </Stack>
    </Alert>
  );
}
