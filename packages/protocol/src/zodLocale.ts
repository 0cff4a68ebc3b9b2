/**
 * zod/mini ships without messages ("Invalid input" for every issue); the
 * English ones make every refusal say what was wrong. Imported first by
 * index.ts: zod's config is global, so this holds for every schema here.
 */
import * as z from 'zod/mini';
import { en } from 'zod/locales';

z.config(en());
