// node:trace_events for fount: tracing that records nothing.
export const createTracing = ({ categories = [] } = {}) => ({ categories: categories.join(","), enabled: false, enable() {}, disable() {} });
export const getEnabledCategories = () => undefined;
export default { createTracing, getEnabledCategories };
