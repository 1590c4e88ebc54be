// A package's tests cover that package's sources, and only them: each package stands alone.
// Root tests (cross-plugin, end to end) exercise everything but are not counted for coverage.
export default (testFile) => {
  const match = /^packages\/([^/]+)\/test\//.exec(testFile.replace(/\\/g, '/'))
  return match ? [`packages/${match[1]}/src/**`] : null
}
