'use strict';
/** One GraphQL request over HTTP for the benches; throws on a non-200 answer or any error in it. */
async function gql(url, query, variables, token) {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  const body = await res.json();
  if (res.status !== 200 || body.errors)
    throw new Error(`GraphQL ${query.slice(0, 40)}: ${res.status} ${JSON.stringify(body.errors)}`);
  return body.data;
}

module.exports = { gql };
