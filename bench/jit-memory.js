#!/usr/bin/env node
/**
 * What graphql-jit keeps per compiled document (issue 40): compiles 60 distinct documents of each
 * shape against Agora's schema, keeps them, and reports the V8 heap they hold per document, per
 * selection and per character of document text, after full collections. This is the figure behind
 * COMPILED_BYTES_PER_SELECTION in src/graphql/jit-executor.ts (which adds a margin for the bytecode
 * V8 makes when the compiled code first runs; this run only compiles).
 *
 *   npm run build && node --expose-gc bench/jit-memory.js
 */
'use strict';
require('reflect-metadata');
const { parse, visit } = require('graphql');
const { compileQuery } = require('graphql-jit');
const { requireDist } = require('./lib/agora');

if (typeof global.gc !== 'function') {
  process.stderr.write('run with node --expose-gc bench/jit-memory.js\n');
  process.exit(2);
}
const { buildGraphQLSchema } = requireDist('graphql/schema.js');
const schema = buildGraphQLSchema();

const THREAD =
  'depth isCollapsed isNew comment { id id36 author { username } textHtml createdAt voteCount isRemoved ' +
  'isDeleted viewerHasVoted }';
const SHAPES = {
  'topic id and title': 'id title',
  'a page of threads': `id title threads { nodes { ${THREAD} } }`,
  'the whole tree (bench/load.js)':
    `id title commentCount author { username } threads { edges { cursor node { ${THREAD} ` +
    `descendants { ${THREAD} } replies { ${THREAD} replies { ${THREAD} } } } } }`,
};

function fields(document) {
  let n = 0;
  visit(document, {
    Field() {
      n++;
    },
  });
  return n;
}

function heapUsed() {
  global.gc();
  global.gc();
  return process.memoryUsage().heapUsed;
}

const N = 60;
for (const [name, selection] of Object.entries(SHAPES)) {
  for (const aliases of [1, 4]) {
    const text = (i) =>
      `query Q($id: ID!) { ${Array.from({ length: aliases }, (_, a) => `a${a}: topic(id: $id) { ${selection} }`).join(
        ' ',
      )} t${i}: __typename }`;
    const kept = [];
    const before = heapUsed();
    for (let i = 0; i < N; i++) kept.push(compileQuery(schema, parse(text(i)), 'Q'));
    const per = (heapUsed() - before) / N;
    const n = fields(parse(text(0)));
    console.log(
      `${name}, ${aliases} alias(es): ${text(0).length} chars, ${n} fields: ` +
        `${(per / 1024).toFixed(1)} KiB per compiled document, ${(per / n).toFixed(0)} B per field, ` +
        `${(per / text(0).length).toFixed(0)} B per character`,
    );
    kept.length = 0;
  }
}
