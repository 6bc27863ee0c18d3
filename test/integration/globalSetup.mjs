// placeholder until the harness lands (owned by the harness work)
export default async function () {}
