import { Alert, Button, Code, Group, Text } from '@mantine/core';
import { dataCollectionSchema, type PathFit, pathFitSchema } from '@service/common';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorMessage } from '../api/client.js';
import { useApi } from '../auth/session.js';

/**
 * An upload's path that the collection's pattern does not take: rather than only refusing, the two
 * ways to make it fit (issue 26, item 2), as `GET /datacollections/{id}/path-fit` proposes them.
 */
export function PathFitOffer({
  fit,
  busy,
  onWiden,
  onRename,
  onDismiss,
}: {
  fit: PathFit;
  busy: boolean;
  onWiden(pattern: string): void;
  onRename(path: string): void;
  onDismiss(): void;
}) {
  return (
    <Alert color="yellow" title="This file’s name does not fit the collection" role="alert">
      <Text size="sm">
        <Code>{fit.path}</Code> does not match the collection’s file pattern <Code>{fit.pattern}</Code>.{' '}
        {fit.rename_to === null && fit.pattern_with_path === null
          ? 'Type a path the pattern takes in “Path in the run”.'
          : 'Add it to the pattern, or upload it under a name the pattern takes.'}
      </Text>
      <Group gap="xs" mt="xs">
        {fit.pattern_with_path !== null && (
          <Button size="xs" loading={busy} onClick={() => onWiden(fit.pattern_with_path as string)}>
            Add {fit.path} to the pattern
          </Button>
        )}
        {fit.rename_to !== null && (
          <Button size="xs" variant="light" disabled={busy} onClick={() => onRename(fit.rename_to as string)}>
            Upload as {fit.rename_to}
          </Button>
        )}
        <Button size="xs" variant="subtle" disabled={busy} onClick={onDismiss}>
          Cancel
        </Button>
      </Group>
    </Alert>
  );
}

/**
 * Asks `GET /datacollections/{id}/path-fit` before an upload: a path that fits goes to `upload`,
 * one that does not becomes `misfit` (shown by PathFitOffer); `widen` saves the wider pattern first.
 */
export function usePathFit(
  collectionId: string,
  onError: (message: string | null) => void,
  upload: (path: string) => Promise<void>,
) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [misfit, setMisfit] = useState<PathFit | null>(null);
  const [widening, setWidening] = useState(false);
  const check = async (chosenPath: string, fileName: string) => {
    onError(null);
    setMisfit(null);
    const path = chosenPath.trim() || fileName;
    try {
      const fit = await api.request(
        `/datacollections/${collectionId}/path-fit?${new URLSearchParams({ path })}`,
        pathFitSchema,
      );
      if (fit.matches) await upload(chosenPath);
      else setMisfit(fit);
    } catch (failure) {
      onError(errorMessage(failure));
    }
  };
  const widen = async (pattern: string, chosenPath: string) => {
    setWidening(true);
    try {
      await api.request(`/datacollections/${collectionId}`, dataCollectionSchema, {
        method: 'PATCH',
        json: { pattern },
      });
      void queryClient.invalidateQueries({ queryKey: ['datacollections'] });
      setMisfit(null);
      await upload(chosenPath);
    } catch (failure) {
      onError(errorMessage(failure));
    } finally {
      setWidening(false);
    }
  };
  return { misfit, widening, check, widen, dismiss: () => setMisfit(null) };
}
