// Generated from openapi.yaml by tools/contract/generate.ts: do not edit.

export type NewPlant = (Plant & {
/**
 * Identification number of the plant
 */
id: number | bigint
})

/**
 * The component schemas of openapi.yaml, and what each operation finds in its event
 */
export interface Schemas {
Plant: Plant
NewPlant: NewPlant
Error: Error
CreatePlantEvent: CreatePlantEvent
}
export interface Plant {
/**
 * The name of the plant
 */
name: string
/**
 * Tag that specifies the type of the plant
 */
tag?: string
}
export interface Error {
/**
 * Numeric error value; equals the HTTP status.
 */
error: number
/**
 * Error message text
 */
message: string
}
/**
 * The Lambda proxy event of createPlant (POST /plants), its body parsed by the JSON body parser
 */
export interface CreatePlantEvent {
body: NewPlant
}
