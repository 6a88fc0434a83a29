export * from "./errors";
export * from "./manifest";
export * from "./problems";
export * from "./profile";
