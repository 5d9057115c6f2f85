/** How SimulateTransaction runs a transaction: the request's `checks` and `do_gas_selection`. */
export interface SimulationOptions {
  readonly checks: boolean;
  readonly doGasSelection: boolean;
}
