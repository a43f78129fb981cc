/** The operations GraphiQL opens with, one tab each. Each area adds its examples here. */
export interface ExampleTab {
  query: string;
  variables?: string;
  headers?: string;
}

export const exampleTabs: ExampleTab[] = [
  {
    query: `# Welcome to Agora's GraphQL API.
# Each tab holds an example: press the play button
# (or Ctrl-Enter) to run it. To act as a user, run
# the Login tab and paste its token into the
# Authorization header in the Headers pane below.

query ServerInfo {
  serverInfo {
    version
    database
  }
}
`,
  },
];
