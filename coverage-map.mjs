// Every test file covers the package sources; examples and benches are measured by their own tests.
export default () => ['packages/*/src/**/*.ts']
