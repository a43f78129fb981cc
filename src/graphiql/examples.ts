/** The operations GraphiQL opens with, one tab each. Each area adds its examples here. */
export interface ExampleTab {
  query: string;
  variables?: string;
  headers?: string;
}

export const exampleTabs: ExampleTab[] = [
  {
    query: `# Welcome to Agora's GraphQL API.
# Each tab holds an example; press the play button (or Ctrl-Enter) to run it.
# Set "Authorization: Bearer <token>" in the Headers pane below to act as a user.

query ServerInfo {
  serverInfo {
    version
    database
  }
}
`,
  },
];
